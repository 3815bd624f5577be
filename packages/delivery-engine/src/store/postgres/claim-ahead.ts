import { takeWithRoom } from '../origin-room.js';
import type { ClaimRequest, DeliveryClaim } from '../store.js';

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
        deep = holdMs > 0 && rows.length === r.limit;
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
      const want = r.limit - handed.length;
      if (want <= 0 || holdMs <= 0) return handed;
      const ahead = deep ? CLAIM_AHEAD_ROWS : 0;
      const maxPerOrigin = r.maxPerOrigin ?? r.limit;
      const busy = new Map<string, number>(r.busyOrigins);
      for (const origin of [...handed, ...held.map((entry) => entry.claim)].map((claim) => claim.origin)) {
        busy.set(origin, (busy.get(origin) ?? 0) + 1);
      }
      let rows: DeliveryClaim[];
      try {
        rows = await claimRows({
          ...r,
          limit: want + ahead,
          maxPerOrigin: ahead > 0 ? maxPerOrigin * AHEAD_PER_ORIGIN_FACTOR : maxPerOrigin,
          busyOrigins: [...busy],
        });
      } catch (error) {
        // Held rows already taken go out all the same (their leases run); the failure shows at
        // the next claim that has nothing held to give.
        if (handed.length > 0) return handed;
        throw error;
      }
      deep = rows.length === want + ahead;
      const at = performance.now();
      const claimed = takeWithRoom(
        rows.map((claim) => ({ claim, at })),
        { ...r, limit: r.limit },
        (entry) => entry.claim.origin,
        { alreadyTaken: handed.map((claim) => claim.origin) },
      );
      held = held.concat(claimed.kept);
      return handed.concat(claimed.taken.map((entry) => entry.claim)).sort((a, b) => a.dueAt - b.dueAt);
    },

    /** The earliest due time held for an origin not in `exclude` (held deliveries are due now). */
    nextHeldDue(exclude: readonly string[]): number | undefined {
      let earliest: number | undefined;
      for (const { claim } of held) {
        if (!exclude.includes(claim.origin) && (earliest === undefined || claim.dueAt < earliest))
          earliest = claim.dueAt;
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
