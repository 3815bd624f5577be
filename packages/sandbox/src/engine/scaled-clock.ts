import type { Clock } from '@kyc/delivery-engine';

/** A {@link Clock} that runs `scale` times faster than the wall clock, plus its inverse for display. */
export interface ScaledClock extends Clock {
  readonly scale: number;
  /** The wall-clock time of a time read from this clock (for showing attempt times to people). */
  toWall(clockMs: number): number;
}

/**
 * Compresses the engine's retry schedule for demos and tests without changing the engine:
 * the engine measures every delay (retries 1, 5, 15 min; leases; sleeps) on its clock, so a
 * clock that runs 60× faster retries after 1 s, 5 s and 15 s of real time. HTTP deadlines are
 * real time in the transport and stay untouched. Scale 1 is the wall clock.
 *
 * @example
 * ```ts
 * const clock = scaledClock(60); // 1 minute of schedule per real second
 * createDeliveryEngine({ store, clock });
 * ```
 */
export function scaledClock(scale: number, wallNow: () => number = Date.now): ScaledClock {
  const anchor = wallNow();
  const now = () => anchor + (wallNow() - anchor) * scale;
  return {
    scale,
    now,
    toWall: (clockMs) => anchor + (clockMs - anchor) / scale,
    sleep: (ms, signal) =>
      new Promise<void>((resolve) => {
        if (signal.aborted) return resolve();
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, Math.min(Math.max(0, ms / scale), 2 ** 31 - 1));
        signal.addEventListener('abort', done, { once: true });
      }),
  };
}
