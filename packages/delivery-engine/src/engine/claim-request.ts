import type { ClaimRequest } from '../store/store.js';
import type { ClaimRoom } from './attempt-slots.js';
import type { Clock } from './clock.js';
import type { ResolvedOptions } from './options.js';

/**
 * How long a store may hold a claim before its send starts (`ClaimRequest.holdMs`): a quarter of
 * the lease's margin over the deadline (the rest covers recording the result), at most a second.
 */
const claimHoldMs = (leaseRealMs: number, deadlineMs: number): number =>
  Math.max(0, Math.min(1000, Math.floor((leaseRealMs - deadlineMs) / 4)));

/** The engine's claim for the free slots of `room`, at this moment of its clock. */
export function claimRequest(clock: Clock, options: ResolvedOptions, room: ClaimRoom): ClaimRequest {
  const leaseRealMs = clock.realMs?.(options.leaseMs) ?? options.leaseMs;
  return {
    ...room,
    now: clock.now(),
    elapsed: clock.elapsed?.() ?? clock.now(),
    leaseMs: options.leaseMs,
    leaseRealMs,
    holdMs: claimHoldMs(leaseRealMs, options.deadlineMs),
  };
}
