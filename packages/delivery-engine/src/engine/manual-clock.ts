import { DeliveryEngineError } from '../delivery-engine-error.js';
import type { Clock } from './clock.js';

/** A {@link Clock} that only moves when told to. */
export interface ManualClock extends Clock {
  /** Moves time forward by `ms` and wakes every sleeper whose time has come. */
  advance(ms: number): void;
  /** Moves time to `epochMs` (never backwards). */
  set(epochMs: number): void;
  /** How many sleeps are waiting: a test can wait for the engine to go idle before advancing. */
  readonly sleepers: number;
}

interface Sleeper {
  readonly until: number;
  readonly resolve: () => void;
}

/**
 * A clock for tests: time stands still until `advance` is called, so the retry schedule can be
 * checked to the millisecond without waiting 21 minutes.
 *
 * @example
 * ```ts
 * const clock = createManualClock(Date.parse('2026-01-01T00:00:00Z'));
 * const engine = createDeliveryEngine({ store, clock });
 * clock.advance(WEBHOOK_RETRY_DELAYS_MS[0]); // the first retry is now due
 * ```
 */
export function createManualClock(startMs = 0): ManualClock {
  const finite = (name: string, value: number) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new DeliveryEngineError(
        'invalid_option',
        `createManualClock: ${name} must be a finite number of milliseconds`,
      );
    }
    return value;
  };
  let now = finite('startMs', startMs);
  let sleepers: Sleeper[] = [];
  const wake = () => {
    const due = sleepers.filter((s) => s.until <= now);
    sleepers = sleepers.filter((s) => s.until > now);
    for (const sleeper of due) sleeper.resolve();
  };
  return {
    now: () => now,
    // A manual clock only moves forward, when told: it is its own monotonic clock.
    elapsed: () => now,
    sleep: (ms, signal) =>
      new Promise<void>((resolve) => {
        if (signal.aborted || ms <= 0) return resolve();
        const sleeper: Sleeper = {
          until: now + ms,
          resolve: () => {
            signal.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        const onAbort = () => {
          sleepers = sleepers.filter((s) => s !== sleeper);
          resolve();
        };
        signal.addEventListener('abort', onAbort, { once: true });
        sleepers.push(sleeper);
      }),
    advance(ms) {
      now += Math.max(0, finite('advance(ms)', ms));
      wake();
    },
    set(epochMs) {
      now = Math.max(now, finite('set(epochMs)', epochMs));
      wake();
    },
    get sleepers() {
      return sleepers.length;
    },
  };
}
