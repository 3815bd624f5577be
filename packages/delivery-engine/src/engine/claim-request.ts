import type { ClaimRequest } from '../store/store.js';
import type { Clock } from './clock.js';
import type { EndpointLimiter } from './endpoint-limiter.js';
import type { ResolvedOptions } from './options.js';

/**
 * How long a store may hold a claim before its send starts (`ClaimRequest.holdMs`): a quarter of
 * the lease's margin over the deadline (the rest covers recording the result), at most a second.
 */
const claimHoldMs = (leaseRealMs: number, deadlineMs: number): number =>
  Math.max(0, Math.min(1000, Math.floor((leaseRealMs - deadlineMs) / 4)));

/** The engine's claim for `limit` free slots, at this moment of its clock and its endpoints' load. */
export function claimRequest(
  clock: Clock,
  options: ResolvedOptions,
  limiter: EndpointLimiter,
  limit: number,
): ClaimRequest {
  const leaseRealMs = clock.realMs?.(options.leaseMs) ?? options.leaseMs;
  return {
    now: clock.now(),
    elapsed: clock.elapsed?.() ?? clock.now(),
    limit,
    leaseMs: options.leaseMs,
    leaseRealMs,
    holdMs: claimHoldMs(leaseRealMs, options.deadlineMs),
    excludeOrigins: limiter.saturated(),
    maxPerOrigin: options.perEndpointConcurrency,
    busyOrigins: limiter.busy(),
  };
}
