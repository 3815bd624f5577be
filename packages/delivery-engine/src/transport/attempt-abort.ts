import { EventEmitter } from 'node:events';

type AbortListener = () => void;

/**
 * The abort switch of one attempt, fired by its deadline or by a stop. undici takes any object
 * with `aborted`, `reason` and `addEventListener`/`removeEventListener` as a request signal, and
 * one of these costs a fraction of an `AbortController` plus its EventTarget listeners, which
 * showed up on the hot path. A real `AbortSignal` is made only when a resolver needs one.
 *
 * undici 8 hands any signal that has `aborted` to Node's `events.addAbortListener`, which calls
 * `addEventListener` on it; an EventEmitter alone (enough for undici 7) fails there.
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

  addEventListener(type: 'abort', listener: AbortListener): void {
    // Every listener is a one-shot: the switch fires once.
    this.once(type, listener);
  }

  removeEventListener(type: 'abort', listener: AbortListener): void {
    this.removeListener(type, listener);
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
