import type { AttemptAbort } from './attempt-abort.js';

const STOPPING = 'attempt aborted: the engine is stopping';

/**
 * Aborts every attempt registered under a signal when it fires, with one listener per signal.
 * The engine passes the same stop signal to every attempt until it stops: adding and removing
 * an `AbortSignal` listener per attempt cost more than the rest of the bookkeeping of a send.
 */
export class AbortRegistry {
  readonly #attempts = new WeakMap<AbortSignal, Set<AttemptAbort>>();

  /** Registers `abort` under `signal` (aborting it at once if the signal already fired). */
  add(signal: AbortSignal | undefined, abort: AttemptAbort): void {
    if (signal === undefined) return;
    if (signal.aborted) {
      abort.abort(new Error(STOPPING));
      return;
    }
    let attempts = this.#attempts.get(signal);
    if (attempts === undefined) {
      const registered = new Set<AttemptAbort>();
      attempts = registered;
      this.#attempts.set(signal, registered);
      signal.addEventListener(
        'abort',
        () => {
          for (const attempt of registered) attempt.abort(new Error(STOPPING));
          registered.clear();
        },
        { once: true },
      );
    }
    attempts.add(abort);
  }

  delete(signal: AbortSignal | undefined, abort: AttemptAbort): void {
    if (signal !== undefined) this.#attempts.get(signal)?.delete(abort);
  }
}
