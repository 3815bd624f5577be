/**
 * Where the engine gets its time. Every schedule decision, lease and timestamp goes through it,
 * so a {@link createManualClock} drives the exact retry schedule in tests without waiting.
 */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Resolves after `ms` of this clock's time, or as soon as `signal` aborts. Never rejects. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /**
   * A monotonic reading in this clock's units (it never steps when the wall clock does), for the
   * holds the engine keeps in memory. A clock without it has those timed on `now()`.
   */
  elapsed?(): number;
  /**
   * How many real milliseconds `clockMs` of this clock's time last, for leases a store times on a
   * clock of its own (Postgres: the database's). A clock without it (a manual one) runs at the
   * wall's pace as far as such a store can tell.
   */
  realMs?(clockMs: number): number;
  /**
   * The wall-clock time of a time read from this clock, for what another machine checks against
   * its own wall clock (a signature's `webhook-timestamp`). A clock without it is taken to be
   * the wall's (a manual clock in tests).
   */
  toWall?(clockMs: number): number;
}

/**
 * Resolves after `ms` of wall time, or as soon as `signal` aborts. Never rejects. Every clock
 * built on real time sleeps through this one function.
 */
export function wallSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    // setTimeout caps at 2^31-1 ms; a longer sleep just wakes early and re-checks.
    const timer = setTimeout(done, Math.min(Math.max(0, ms), 2 ** 31 - 1));
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * The wall clock: `Date.now()` and one `setTimeout` per sleep (the engine sleeps on one at a
 * time); `performance.now()` for what must not step with it.
 */
export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  sleep: wallSleep,
  elapsed: () => performance.now(),
  realMs: (clockMs: number) => clockMs,
});
