/**
 * Group commit for a synchronous database: calls made in the same turn of the event loop are
 * written in one transaction at `setImmediate`, and each call's promise settles with its own
 * result once that transaction has committed. Attempts finishing together thus cost one
 * SQLite write transaction instead of one each, without weakening "resolved = durable".
 */
export function groupCommit<T, R>(
  writeBatch: (items: readonly T[]) => (R | Error)[],
  wrapError: (error: unknown) => Error,
): (item: T) => Promise<R> {
  let queue: { item: T; resolve: (value: R) => void; reject: (error: Error) => void }[] = [];
  const flush = () => {
    const batch = queue;
    queue = [];
    let results: (R | Error)[];
    try {
      results = writeBatch(batch.map((entry) => entry.item));
    } catch (error) {
      const wrapped = wrapError(error);
      for (const entry of batch) entry.reject(wrapped);
      return;
    }
    batch.forEach((entry, index) => {
      const result = results[index];
      if (result instanceof Error) entry.reject(wrapError(result));
      else entry.resolve(result as R);
    });
  };
  return (item) =>
    new Promise<R>((resolve, reject) => {
      if (queue.length === 0) setImmediate(flush);
      queue.push({ item, resolve, reject });
    });
}

/**
 * The asynchronous form for a networked database: calls made in the same turn are sent as one
 * statement at `setImmediate`; each promise settles with its own result after that statement's
 * commit. Fewer round trips and commits under load, no added wait when idle.
 */
export function groupAsync<T, R>(writeBatch: (items: readonly T[]) => Promise<R[]>): (item: T) => Promise<R> {
  let queue: { item: T; resolve: (value: R) => void; reject: (error: unknown) => void }[] = [];
  const flush = () => {
    const batch = queue;
    queue = [];
    writeBatch(batch.map((entry) => entry.item)).then(
      (results) => {
        batch.forEach((entry, index) => {
          entry.resolve(results[index] as R);
        });
      },
      (error: unknown) => {
        for (const entry of batch) entry.reject(error);
      },
    );
  };
  return (item) =>
    new Promise<R>((resolve, reject) => {
      if (queue.length === 0) setImmediate(flush);
      queue.push({ item, resolve, reject });
    });
}
