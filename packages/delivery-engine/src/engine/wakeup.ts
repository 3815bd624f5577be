/**
 * A level-triggered wake-up: `wake()` before `wait()` is not lost, many wakes collapse into one.
 * Used for enqueue, a freed slot, redeliver, stop and LISTEN/NOTIFY.
 */
export interface Wakeup {
  wake(): void;
  /** Resolves at the next `wake()` (at once if one happened since `reset()`), or when `signal` aborts. */
  wait(signal?: AbortSignal): Promise<void>;
  reset(): void;
}

export function createWakeup(): Wakeup {
  let pending = false;
  const waiters = new Set<() => void>();
  return {
    wake() {
      pending = true;
      for (const resolve of waiters) resolve();
      waiters.clear();
    },
    wait(signal) {
      if (pending || signal?.aborted === true) return Promise.resolve();
      if (signal === undefined) return new Promise<void>((resolve) => waiters.add(resolve));
      return new Promise<void>((resolve) => {
        // An aborted wait removes itself so idle polling never accumulates closures.
        const done = () => {
          waiters.delete(done);
          signal.removeEventListener('abort', done);
          resolve();
        };
        waiters.add(done);
        signal.addEventListener('abort', done, { once: true });
      });
    },
    reset() {
      pending = false;
    },
  };
}
