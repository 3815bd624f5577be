import { EventEmitter } from 'node:events';

/**
 * The abort switch of one attempt, fired by its deadline or by a stop. undici accepts any
 * EventEmitter with `aborted`/`reason` as a request signal, and one of these costs a fraction of
 * an `AbortController` plus its EventTarget listeners, which showed up on the hot path. A real
 * `AbortSignal` is made only when a resolver needs one.
 */
export class AttemptAbort extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;
  /** Set when the deadline (rather than a stop) fired. */
  timedOut = false;
  #controller: AbortController | undefined;

  abort(reason: unknown, timedOut = false): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.timedOut = timedOut;
    this.#controller?.abort(reason);
    this.emit('abort');
  }

  /** A standard `AbortSignal` that follows this switch (for resolvers). */
  signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort(this.reason);
    }
    return this.#controller.signal;
  }
}
