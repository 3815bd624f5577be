/** An abort signal that fires when its parent aborts or when its own time runs out. */
export interface TimeoutScope {
  readonly signal: AbortSignal;
  /** True once the scope's own timer fired (as opposed to the parent aborting). */
  readonly expired: () => boolean;
  /** Clears the timer and unhooks from the parent; call when the scope's work is done. */
  readonly dispose: () => void;
}

/**
 * Links a timeout to a parent signal with one controller and one cleared timer. This is what
 * `AbortSignal.any([parent, AbortSignal.timeout(ms)])` expresses, but measured cheaper per call
 * on Node 20, and it leaves no pending timer behind once the call is over (`AbortSignal.timeout`
 * timers run to their end even after the request finished).
 *
 * @example
 * const scope = createTimeoutScope(userSignal, 10_000);
 * try { await fetch(url, { signal: scope.signal }); } finally { scope.dispose(); }
 */
export function createTimeoutScope(parent: AbortSignal | undefined, ms: number): TimeoutScope {
  const controller = new AbortController();
  let expired = false;
  const onParentAbort = () => controller.abort(parent?.reason);
  if (parent?.aborted) controller.abort(parent.reason);
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new DOMException(`timed out after ${ms} ms`, 'TimeoutError'));
  }, ms);
  return {
    signal: controller.signal,
    expired: () => expired,
    dispose: () => {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParentAbort);
    },
  };
}
