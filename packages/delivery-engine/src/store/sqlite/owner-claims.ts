import type { ClaimRequest, DeliveryClaim } from '../store.js';
import type { CommitQueue } from './commit-queue.js';
import { claimOf } from './due-reads.js';
import type { OriginQueues } from './origin-queues.js';
import type { Reservations } from './reservations.js';
import { RUNWAY_PER_ORIGIN_FACTOR, RUNWAY_ROWS, Runway, type RunwayEntry } from './runway.js';

export interface OwnerClaimsParts {
  readonly reservations: Reservations;
  readonly origins: OriginQueues;
  readonly commits: CommitQueue;
}

/** The owner's claims: what the engine may send now, never before the file lists it as in flight. */
export interface OwnerClaims {
  claim(r: ClaimRequest): Promise<DeliveryClaim[]>;
  readonly runway: Runway;
  /** Ends the runway's reservations (never sent): at close, so a successor neither holds nor counts them. */
  dropRunway(): void;
}

/**
 * Claims for the SQLite owner: rows come from the runway (reserved ahead and listed as in flight
 * with an earlier commit) or are read and reserved now, and then listed in a commit of their own
 * before they are handed out. Each claim tops the runway up for the next ones.
 */
export function ownerClaims({ reservations, origins, commits }: OwnerClaimsParts): OwnerClaims {
  const runway = new Runway();
  const originsOf = (entries: readonly RunwayEntry[]) => entries.map((entry) => entry.row.origin);
  // Whether another source may still fill the claim: a count is enough, the take applies each origin's room.
  const roomLeft = (r: ClaimRequest, handed: readonly RunwayEntry[]) => handed.length < r.limit + (r.slow?.limit ?? 0);

  async function claim(r: ClaimRequest): Promise<DeliveryClaim[]> {
    let handed = runway.take(r);
    if (runway.listing && roomLeft(r, handed)) {
      // Rows reserved ahead whose listing has not committed yet: commit it now rather than
      // skip them (they are held from everyone else meanwhile).
      await commits.push(() => undefined);
      handed = handed.concat(runway.take(r, originsOf(handed)));
    }
    if (roomLeft(r, handed)) {
      const fresh = reserve(r, handed, r.now);
      // Nothing is sent before the file lists it as in flight: a successor (after a crash
      // or a takeover) then knows every send that may have no result.
      if (fresh.length > 0) {
        try {
          await listInFlight(fresh, false);
        } catch (error) {
          runway.add(handed);
          throw error;
        }
      }
      handed.push(...fresh);
    }
    topUp(r, handed);
    // Oldest due first, whichever way each row came (the runway, or read now).
    handed.sort((a, b) => a.row.next_attempt_at - b.row.next_attempt_at || a.row.rid - b.row.rid);
    return handed.map((entry) => claimOf(entry.row, entry.reservation));
  }

  /** Reserves due rows that fit `r` (room counted beside `already`), not yet listed as in flight. */
  function reserve(
    r: Parameters<OriginQueues['take']>[0],
    already: readonly RunwayEntry[],
    now: number,
  ): RunwayEntry[] {
    return origins.take(r, now, originsOf(already)).map((row) => ({
      row,
      reservation: reservations.take({
        id: row.id,
        origin: row.origin,
        lostLeases: row.lost_leases,
        attempts: row.attempts,
      }),
      durable: false,
    }));
  }

  /**
   * Lists `entries` as in flight in a group commit and marks them sendable once it is durable:
   * at once (a claim waiting on them), or with the next commit the results pay for (`canWait`).
   * If the listing fails, their reservations end and they stay due in the file.
   */
  function listInFlight(entries: RunwayEntry[], canWait: boolean): Promise<void> {
    return commits
      .push(() => undefined, undefined, { canWait })
      .then(
        () => {
          for (const entry of entries) entry.durable = true;
        },
        (error: unknown) => {
          runway.drop((entry) => entries.includes(entry));
          for (const { row, reservation } of entries) {
            reservations.end(reservation.id, reservation.token);
            origins.reopen(row.origin, row.next_attempt_at);
          }
          throw error;
        },
      );
  }

  /**
   * Reserves rows ahead of the engine's next claims, listed with the next commit (see `runway.ts`).
   * Not limited by the room origins have now (it is for slots that free later, and `take` applies
   * the room at hand-out), only by `maxPerOrigin` × RUNWAY_PER_ORIGIN_FACTOR within the runway,
   * so one endpoint's backlog does not fill it.
   */
  function topUp(r: ClaimRequest, handed: readonly RunwayEntry[]): void {
    // Topped up when half spent, in one go: the reservation and its listing cost the same for
    // 32 rows as for one.
    if (handed.length === 0 || runway.size > RUNWAY_ROWS / 2) return;
    const room = RUNWAY_ROWS - runway.size;
    const ahead = reserve(
      {
        limit: room,
        // Only for the prompt lane: a slow origin's slots free once in many seconds, and its rows
        // would only sit in the runway meanwhile.
        ...(r.slow !== undefined && { slow: { origins: r.slow.origins, limit: 0 } }),
        excludeOrigins: [],
        busyOrigins: runway.perOrigin(),
        ...(r.maxPerOrigin !== undefined && { maxPerOrigin: r.maxPerOrigin * RUNWAY_PER_ORIGIN_FACTOR }),
      },
      [],
      r.now,
    );
    if (ahead.length === 0) return;
    runway.add(ahead);
    // A failed listing is the next claim's business (it finds the store unwritable): no rejection here.
    listInFlight(ahead, true).catch(() => undefined);
  }

  return {
    claim,
    runway,
    dropRunway() {
      for (const { reservation } of runway.drop()) reservations.end(reservation.id, reservation.token);
    },
  };
}
