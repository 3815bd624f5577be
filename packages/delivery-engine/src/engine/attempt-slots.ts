import type { ClaimRequest } from '../store/store.js';

/** Where an attempt in flight counts: `prompt` while its endpoint answers promptly, else `slow`. */
export type Lane = 'prompt' | 'slow';

/** Why an origin counts as slow: an attempt unanswered past `slowAfterMs`, a timeout, or a late answer. */
export type SlowReason = 'no_answer' | 'timeout' | 'slow_answer';

/** One attempt in flight. */
export interface Slot {
  readonly origin: string;
  /** `performance.now()` when the slot was taken. */
  readonly takenAt: number;
  lane: Lane;
}

/** The room part of a claim: each lane's free slots and each origin's. */
export type ClaimRoom = Pick<ClaimRequest, 'limit' | 'slow' | 'excludeOrigins' | 'maxPerOrigin' | 'busyOrigins'>;

/** A slow origin as `loopHealth()` reports it. */
export interface SlowOrigin {
  /** `scheme://host:port`. */
  readonly origin: string;
  readonly reason: SlowReason;
  /** Its attempts in flight now. */
  readonly inFlight: number;
  /** How long its oldest attempt in flight has waited (0 when none is in flight). */
  readonly oldestAttemptMs: number;
  /** How long it has counted as slow. */
  readonly slowForMs: number;
}

/** Both lanes and the slow origins, as `loopHealth()` and the metrics report them. */
export interface LanesSnapshot {
  readonly prompt: { readonly inFlight: number; readonly capacity: number };
  readonly slow: { readonly inFlight: number; readonly capacity: number; readonly oldestAttemptMs: number };
  /** Every origin that counts as slow now (most attempts in flight first), at most `MAX_REPORTED` (not exported). */
  readonly slowOrigins: readonly SlowOrigin[];
  /** How many origins count as slow in all. */
  readonly slowOriginCount: number;
  /** The same, by why. */
  readonly slowOriginsByReason: Readonly<Record<SlowReason, number>>;
}

export interface AttemptSlotsOptions {
  readonly concurrency: number;
  readonly slowConcurrency: number;
  readonly perEndpoint: number;
  readonly slowAfterMs: number;
  /** A slot was freed or left the prompt lane: the loop may claim again. */
  readonly onRoom: () => void;
}

export interface AttemptSlots {
  /** The room of the next claim, or `undefined` when no lane has a free slot. */
  room(): ClaimRoom | undefined;
  /** Whether `room()` would find a free slot (without building it). */
  hasRoom(): boolean;
  /** Takes a slot for a claimed delivery of `origin`; `undefined` when none fits (a store that ignored the room). */
  acquire(origin: string): Slot | undefined;
  /** Gives `slot` back once its exchange ended; `timedOut`: it ended on its deadline. */
  release(slot: Slot, timedOut: boolean): void;
  /** Attempts in flight in both lanes. */
  readonly inFlight: number;
  snapshot(): LanesSnapshot;
  close(): void;
}

/** Slow origins remembered at most; the oldest mark is forgotten first (that origin starts in the prompt lane again). */
const MAX_MARKS = 4096;
/** Slow origins a claim names at most (the most recent): its SQL parameter stays small. */
const MAX_NAMED = 1024;
/** Slow origins `loopHealth()` lists at most. */
export const MAX_REPORTED = 50;

/**
 * The engine's concurrency. An attempt that waits on a socket costs no CPU, so it must not cost a
 * scarce slot: attempts start in the prompt lane (`concurrency`), and one still unanswered after
 * `slowAfterMs` moves to the slow lane, freeing its prompt slot at once; its origin then counts as
 * slow, and its next attempts start in the slow lane (`slowConcurrency`), until one of them
 * answers within `slowAfterMs`. Endpoints that hang or answer late share the slow lane among
 * themselves, so however many there are, the prompt lane stays for the endpoints that answer.
 * Each origin holds at most `perEndpoint` attempts in both lanes together, and both lanes
 * together at most `concurrency + slowConcurrency` (a move never waits for room: an attempt in
 * flight cannot be taken back, and a full slow lane only stops new claims of slow origins).
 */
export function createAttemptSlots(options: AttemptSlotsOptions): AttemptSlots {
  const { concurrency, slowConcurrency, perEndpoint, slowAfterMs, onRoom } = options;
  const maxTotal = concurrency + slowConcurrency;
  /** Insertion order is age order: the sweep stops at the first young slot. */
  const prompt = new Set<Slot>();
  const slow = new Set<Slot>();
  const perOrigin = new Map<string, number>();
  const marks = new Map<string, { since: number; reason: SlowReason }>();
  let named: readonly string[] = [];
  let namedStale = false;
  let sweepTimer: ReturnType<typeof setTimeout> | undefined;

  const now = () => performance.now();

  function mark(origin: string, reason: SlowReason): void {
    const since = marks.get(origin)?.since ?? now();
    // Re-inserted so the Map's order is the order of last activity: the oldest is forgotten first.
    if (!marks.delete(origin)) namedStale = true;
    marks.set(origin, { since, reason });
    if (marks.size > MAX_MARKS) {
      const oldest = marks.keys().next().value;
      if (oldest !== undefined) marks.delete(oldest);
    }
  }

  function unmark(origin: string): void {
    if (marks.delete(origin)) namedStale = true;
  }

  function slowNames(): readonly string[] {
    if (namedStale) {
      const all = [...marks.keys()];
      named = all.length > MAX_NAMED ? all.slice(-MAX_NAMED) : all;
      namedStale = false;
    }
    return named;
  }

  function sweep(): void {
    sweepTimer = undefined;
    const cutoff = now() - slowAfterMs;
    let moved = false;
    for (const slot of prompt) {
      if (slot.takenAt > cutoff) break;
      prompt.delete(slot);
      slot.lane = 'slow';
      slow.add(slot);
      mark(slot.origin, 'no_answer');
      moved = true;
    }
    armSweep();
    if (moved) onRoom();
  }

  function armSweep(): void {
    if (sweepTimer !== undefined) return;
    const oldest = prompt.values().next().value;
    if (oldest === undefined) return;
    sweepTimer = setTimeout(sweep, Math.max(0, oldest.takenAt + slowAfterMs - now()));
    // The loop and the sockets keep a busy process alive; this timer alone must not.
    sweepTimer.unref?.();
  }

  const free = () => {
    const total = maxTotal - prompt.size - slow.size;
    const promptFree = Math.min(concurrency - prompt.size, total);
    const slowFree = marks.size === 0 ? 0 : Math.min(slowConcurrency - slow.size, total);
    return { promptFree, slowFree };
  };

  return {
    hasRoom() {
      const { promptFree, slowFree } = free();
      return promptFree > 0 || slowFree > 0;
    },

    room() {
      const { promptFree, slowFree } = free();
      if (promptFree <= 0 && slowFree <= 0) return undefined;
      const excludeOrigins: string[] = [];
      const busyOrigins: [string, number][] = [];
      for (const [origin, count] of perOrigin) {
        if (count >= perEndpoint) excludeOrigins.push(origin);
        else busyOrigins.push([origin, count]);
      }
      return {
        limit: Math.max(0, promptFree),
        ...(marks.size > 0 && { slow: { origins: slowNames(), limit: Math.max(0, slowFree) } }),
        excludeOrigins,
        maxPerOrigin: perEndpoint,
        busyOrigins,
      };
    },

    acquire(origin) {
      const count = perOrigin.get(origin) ?? 0;
      if (count >= perEndpoint || prompt.size + slow.size >= maxTotal) return undefined;
      const lane: Lane = marks.has(origin) ? 'slow' : 'prompt';
      if (lane === 'prompt' ? prompt.size >= concurrency : slow.size >= slowConcurrency) return undefined;
      const slot: Slot = { origin, takenAt: now(), lane };
      (lane === 'prompt' ? prompt : slow).add(slot);
      perOrigin.set(origin, count + 1);
      if (lane === 'prompt') armSweep();
      return slot;
    },

    release(slot, timedOut) {
      if (!(slot.lane === 'prompt' ? prompt : slow).delete(slot)) return;
      const count = (perOrigin.get(slot.origin) ?? 1) - 1;
      // Deleting at zero keeps the map as small as the set of busy endpoints.
      if (count <= 0) perOrigin.delete(slot.origin);
      else perOrigin.set(slot.origin, count);
      if (timedOut) mark(slot.origin, 'timeout');
      else if (now() - slot.takenAt >= slowAfterMs) mark(slot.origin, 'slow_answer');
      else unmark(slot.origin);
      onRoom();
    },

    get inFlight() {
      return prompt.size + slow.size;
    },

    snapshot() {
      const at = now();
      // Moved slots join the slow lane late but are older: its order is not age order.
      const oldest = new Map<string, number>();
      let oldestSlow = 0;
      for (const slot of slow) {
        const age = at - slot.takenAt;
        oldestSlow = Math.max(oldestSlow, age);
        if (age > (oldest.get(slot.origin) ?? -1)) oldest.set(slot.origin, age);
      }
      const slowOriginsByReason = { no_answer: 0, timeout: 0, slow_answer: 0 };
      for (const { reason } of marks.values()) slowOriginsByReason[reason]++;
      const slowOrigins: SlowOrigin[] = [...marks].map(([origin, { since, reason }]) => ({
        origin,
        reason,
        inFlight: perOrigin.get(origin) ?? 0,
        oldestAttemptMs: Math.round(oldest.get(origin) ?? 0),
        slowForMs: Math.round(at - since),
      }));
      slowOrigins.sort((a, b) => b.inFlight - a.inFlight || b.oldestAttemptMs - a.oldestAttemptMs);
      return {
        prompt: { inFlight: prompt.size, capacity: concurrency },
        slow: {
          inFlight: slow.size,
          capacity: slowConcurrency,
          oldestAttemptMs: Math.round(oldestSlow),
        },
        slowOrigins: slowOrigins.slice(0, MAX_REPORTED),
        slowOriginCount: marks.size,
        slowOriginsByReason,
      };
    },

    close() {
      if (sweepTimer !== undefined) clearTimeout(sweepTimer);
      sweepTimer = undefined;
    },
  };
}
