import { WEBHOOK_MAX_ATTEMPTS, WEBHOOK_RETRY_DELAYS_MS } from '@kyc/contracts';
import { DeliveryEngineError } from '../delivery-engine-error.js';
import type { AttemptTransition } from '../store/store.js';

/** Options of {@link planNextAttempt}. */
export interface ScheduleOptions {
  /** Up to this fraction of the delay is added at random (0 = none, 0.1 = up to +10 %). Never subtracted. */
  readonly jitter?: number;
  /** Source of randomness in [0, 1) for the jitter (default `Math.random`). */
  readonly random?: () => number;
}

/**
 * What a delivery becomes after an attempt of the current round: `delivered` on the outcome
 * `delivered` only (HTTP 200); otherwise due again after the protocol's delay for that attempt
 * (1, 5, 15 minutes) or `failed` after the last attempt of the round.
 *
 * @example
 * ```ts
 * planNextAttempt('server_error', 1, now); // { state: 'pending', nextAttemptAt: now + 60 s, finishedAt: now }
 * planNextAttempt('delivered', 2, now);    // { state: 'delivered', nextAttemptAt: undefined, finishedAt: now }
 * ```
 */
export function planNextAttempt(
  outcome: string,
  roundAttempt: number,
  finishedAt: number,
  options: ScheduleOptions = {},
): AttemptTransition {
  if (!Number.isInteger(roundAttempt) || roundAttempt < 1) {
    throw new DeliveryEngineError('invalid_option', 'planNextAttempt: roundAttempt must be an integer from 1');
  }
  if (!Number.isFinite(finishedAt)) {
    throw new DeliveryEngineError('invalid_option', 'planNextAttempt: finishedAt must be epoch milliseconds');
  }
  if (outcome === 'delivered') return { state: 'delivered', nextAttemptAt: undefined, finishedAt };
  const delay = WEBHOOK_RETRY_DELAYS_MS[roundAttempt - 1];
  if (roundAttempt >= WEBHOOK_MAX_ATTEMPTS || delay === undefined) {
    return { state: 'failed', nextAttemptAt: undefined, finishedAt };
  }
  const jitter = Math.min(1, Math.max(0, options.jitter ?? 0));
  const extra =
    jitter === 0 ? 0 : Math.floor(delay * jitter * Math.min(1, Math.max(0, (options.random ?? Math.random)())));
  return { state: 'pending', nextAttemptAt: finishedAt + delay + extra, finishedAt };
}
