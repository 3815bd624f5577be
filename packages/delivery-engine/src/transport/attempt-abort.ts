type AbortListener = () => void;

/**
 * The abort switch of one attempt, fired by its deadline or by a stop. It costs a fraction of an
 * `AbortController` plus its EventTarget listeners, which showed up on the hot path, and of an
 * EventEmitter, whose `once` binds a wrapper per listener: an attempt has one or two listeners,
 * kept in a plain array. A real `AbortSignal` is made only when a resolver needs one.
 */
export class AttemptAbort {
  aborted = false;
  reason: unknown = undefined;
  /** Set when the deadline (rather than a stop) fired. */
  timedOut = false;
  #listeners: AbortListener[] | undefined;
  #controller: AbortController | undefined;

  abort(reason: unknown, timedOut = false): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.timedOut = timedOut;
    this.#controller?.abort(reason);
    const listeners = this.#listeners;
    this.#listeners = undefined;
    // Every listener is a one-shot: the switch fires once.
    if (listeners !== undefined) for (const listener of listeners) listener();
  }

  addEventListener(_type: 'abort', listener: AbortListener): void {
    if (this.aborted) return;
    this.#listeners ??= [];
    this.#listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: AbortListener): void {
    const listeners = this.#listeners;
    if (listeners === undefined) return;
    const index = listeners.indexOf(listener);
    if (index !== -1) listeners.splice(index, 1);
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
