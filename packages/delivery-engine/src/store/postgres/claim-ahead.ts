import { laneOpen, OriginRoom, slowOriginsOf, takeWithRoom } from '../origin-room.js';
import type { ClaimRequest, DeliveryClaim, LaneRoom } from '../store.js';

/** How many of `rows` count against the prompt lane of `request`. */
function promptRows(request: ClaimRequest, rows: readonly DeliveryClaim[]): number {
  const slow = slowOriginsOf(request);
  return rows.reduce((n, claim) => (slow.has(claim.origin) ? n : n + 1), 0);
}

/**
 * How many deliveries a worker claims beyond its free slots while the queue is deep. Slots free
 * one to three at a time, and a claim each cost a statement per 7 deliveries (4 workers × 16 in
 * flight): the statements, not the rows, were most of what Postgres and the workers spent.
 */
export const CLAIM_AHEAD_ROWS = 32;
/** One endpoint may hold this many times its `maxPerOrigin` ahead: its slots free again and again. */
const AHEAD_PER_ORIGIN_FACTOR = 4;

interface Held {
  readonly claim: DeliveryClaim;
  /** `performance.now()` when the claim's lease began. */
  readonly at: number;
}

/** What {@link claimAhead} claims and gives back with. */
export interface ClaimAheadParts {
  claimRows(request: ClaimRequest): Promise<DeliveryClaim[]>;
  release(claim: DeliveryClaim): Promise<boolean>;
}

/**
 * Claims for a Postgres worker, with deliveries held ahead of its free slots. Each held delivery
 * is leased like any claim, so no other worker can take it, and it is handed out only while its
 * lease still covers a whole attempt (`request.holdMs`, which the engine derives from the lease's
 * margin over the deadline); an older one is given back unsent. Nothing is held for a request
 * without `holdMs`, or until a claim came back full (a queue only as deep as the free slots is
 * claimed as before, so workers share a short queue). The price is on a crash: the next claim of
 * a held delivery counts a lost lease, as for one that was sent (never one fewer).
 */
export function claimAhead({ claimRows, release }: ClaimAheadParts) {
  let held: Held[] = [];
  /** The last claim from the table came back with as many rows as it asked for. */
  let deep = false;

  const giveBack = (stale: readonly Held[]): void => {
    // A release that fails leaves the lease to end on its own; the delivery is then retried.
    for (const { claim } of stale) void release(claim).catch(() => undefined);
  };

  return {
    async claim(r: ClaimRequest): Promise<DeliveryClaim[]> {
      const holdMs = r.holdMs ?? 0;
      if (held.length === 0 && (holdMs <= 0 || !deep)) {
        const rows = await claimRows(r);
        deep = holdMs > 0 && promptRows(r, rows) === r.limit;
        return rows;
      }
      // Held rows are in claim order: the stale ones, if any, are a prefix.
      const now = performance.now();
      let fresh = 0;
      while (fresh < held.length && now - (held[fresh] as Held).at > holdMs) fresh++;
      if (fresh > 0) {
        giveBack(held.slice(0, fresh));
        held = held.slice(fresh);
      }
      const first = takeWithRoom(held, r, (entry) => entry.claim.origin);
      held = first.kept;
      const handed = first.taken.map((entry) => entry.claim);
      const room = new OriginRoom(
        r,
        handed.map((claim) => claim.origin),
      );
      if (room.full || holdMs <= 0) return handed;
      // Only the prompt lane claims ahead: a slow origin's slots free once in many seconds.
      const ahead = deep ? CLAIM_AHEAD_ROWS : 0;
      const maxPerOrigin = r.maxPerOrigin ?? r.limit;
      const busy = new Map<string, number>(r.busyOrigins);
      for (const origin of [...handed, ...held.map((entry) => entry.claim)].map((claim) => claim.origin)) {
        busy.set(origin, (busy.get(origin) ?? 0) + 1);
      }
      const request: ClaimRequest = {
        ...r,
        limit: room.promptLeft + ahead,
        ...(r.slow !== undefined && { slow: { origins: r.slow.origins, limit: room.slowLeft } }),
        maxPerOrigin: ahead > 0 ? maxPerOrigin * AHEAD_PER_ORIGIN_FACTOR : maxPerOrigin,
        busyOrigins: [...busy],
      };
      let rows: DeliveryClaim[];
      try {
        rows = await claimRows(request);
      } catch (error) {
        // Held rows already taken go out all the same (their leases run); the failure shows at
        // the next claim that has nothing held to give.
        if (handed.length > 0) return handed;
        throw error;
      }
      deep = promptRows(request, rows) === request.limit;
      const at = performance.now();
      const claimed = takeWithRoom(
        rows.map((claim) => ({ claim, at })),
        r,
        (entry) => entry.claim.origin,
        { alreadyTaken: handed.map((claim) => claim.origin) },
      );
      held = held.concat(claimed.kept);
      return handed.concat(claimed.taken.map((entry) => entry.claim)).sort((a, b) => a.dueAt - b.dueAt);
    },

    /** The earliest due time held for an origin not in `exclude` whose lane is open (held deliveries are due now). */
    nextHeldDue(exclude: readonly string[], lanes?: LaneRoom): number | undefined {
      let earliest: number | undefined;
      const slow = slowOriginsOf(lanes);
      for (const { claim } of held) {
        if (exclude.includes(claim.origin) || !laneOpen(lanes, slow, claim.origin)) continue;
        if (earliest === undefined || claim.dueAt < earliest) earliest = claim.dueAt;
      }
      return earliest;
    },

    /** Gives every held delivery back (the engine stopped claiming); resolves when each release answered. */
    async releaseHeld(): Promise<void> {
      const all = held;
      held = [];
      deep = false;
      await Promise.all(all.map(({ claim }) => release(claim).catch(() => false)));
    },
  };
}
