import type { ClaimRequest, DeliveryClaim } from '../store.js';
import type { CommitQueue } from './commit-queue.js';
import { claimOf, type DueRow } from './due-reads.js';
import type { LocalQueue } from './local-queue.js';
import type { Reservations } from './reservations.js';
import { RUNWAY_PER_ORIGIN_FACTOR, RUNWAY_ROWS, Runway, type RunwayEntry } from './runway.js';

export interface OwnerClaimsParts {
  readonly reservations: Reservations;
  readonly queue: LocalQueue<DueRow>;
  /** Reads the next due rows into `queue`. */
  readonly readDue: (request: ClaimRequest) => void;
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
export function ownerClaims({ reservations, queue, readDue, commits }: OwnerClaimsParts): OwnerClaims {
  const runway = new Runway();

  async function claim(r: ClaimRequest): Promise<DeliveryClaim[]> {
    let handed = runway.take(r);
    if (handed.length < r.limit && runway.listing) {
      // Rows reserved ahead whose listing has not committed yet: commit it now rather than
      // skip them (they are held from everyone else meanwhile).
      await commits.push(() => undefined);
      handed = handed.concat(runway.take({ ...r, limit: r.limit - handed.length, busyOrigins: withHanded(r, handed) }));
    }
    if (handed.length < r.limit) {
      const fresh = reserve({ ...r, limit: r.limit - handed.length }, handed);
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

  /** Reserves up to `r.limit` due rows (room counted beside `already`), not yet listed as in flight. */
  function reserve(r: ClaimRequest, already: readonly RunwayEntry[]): RunwayEntry[] {
    const taken = already.map((entry) => entry.row);
    let rows = queue.take(r, taken);
    if (rows.length < r.limit) {
      readDue(r);
      rows = rows.concat(queue.take(r, [...taken, ...rows]));
    }
    return rows.map((row) => ({
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
          for (const { reservation } of entries) reservations.end(reservation.id, reservation.token);
          queue.reset();
          throw error;
        },
      );
  }

  /** `r.busyOrigins` plus the rows already handed out in this claim. */
  function withHanded(r: ClaimRequest, handed: readonly RunwayEntry[]): [string, number][] {
    const busy = new Map<string, number>(r.busyOrigins);
    for (const { row } of handed) busy.set(row.origin, (busy.get(row.origin) ?? 0) + 1);
    return [...busy];
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
        now: r.now,
        limit: room,
        leaseMs: r.leaseMs,
        excludeOrigins: [],
        busyOrigins: runway.perOrigin(),
        ...(r.maxPerOrigin !== undefined && { maxPerOrigin: r.maxPerOrigin * RUNWAY_PER_ORIGIN_FACTOR }),
      },
      [],
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
