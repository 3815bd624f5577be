import { DeliveryEngineError } from '../delivery-engine-error.js';
import { type Clock, wallSleep } from './clock.js';

/** A {@link Clock} that runs `scale` times faster than the wall clock, plus its inverse for display. */
export interface ScaledClock extends Clock {
  readonly scale: number;
  /** The wall-clock time of a time read from this clock (for people, and for signature timestamps). */
  toWall(clockMs: number): number;
}

/** Options of {@link scaledClock}. */
export interface ScaledClockOptions {
  /**
   * The instant (epoch ms) where clock time and wall time agree. Default: when the clock is
   * made. Processes that share one queue pass the same anchor so that they agree on the time.
   */
  readonly anchor?: number;
  /** The wall clock read; injectable for tests. Default `Date.now`. */
  readonly wallNow?: () => number;
}

/**
 * Compresses the retry schedule for demos and tests without changing the engine: every delay
 * (retries 1, 5, 15 min; leases; sleeps) is measured on the engine's clock, so a clock that
 * runs 60× faster retries after 1 s, 5 s and 15 s of real time. HTTP deadlines are real time
 * in the transport and stay untouched. Scale 1 is the wall clock.
 *
 * @example
 * ```ts
 * const clock = scaledClock(60); // 1 minute of schedule per real second
 * createDeliveryEngine({ store, clock });
 * ```
 */
export function scaledClock(scale: number, options: ScaledClockOptions = {}): ScaledClock {
  if (typeof scale !== 'number' || !Number.isFinite(scale) || scale <= 0) {
    throw new DeliveryEngineError(
      'invalid_option',
      `scaledClock: scale must be a finite number above 0 (got ${String(scale)})`,
    );
  }
  const wallNow = options.wallNow ?? Date.now;
  const anchor = options.anchor ?? wallNow();
  if (!Number.isFinite(anchor)) {
    throw new DeliveryEngineError('invalid_option', 'scaledClock: anchor must be a finite epoch time in milliseconds');
  }
  return Object.freeze({
    scale,
    now: () => anchor + (wallNow() - anchor) * scale,
    toWall: (clockMs: number) => anchor + (clockMs - anchor) / scale,
    sleep: (ms: number, signal: AbortSignal) => wallSleep(ms / scale, signal),
    elapsed: () => performance.now() * scale,
    realMs: (clockMs: number) => clockMs / scale,
  });
}
