/**
 * Calls that may share one statement: each call's promise settles with its own result after that
 * statement's commit. A call made with nothing else pending goes out after `waitMs` (others
 * arriving meanwhile join it) or as soon as `fullBatch` calls are waiting; fewer round trips and
 * commits under load, at most `waitMs` more before an idle result is recorded.
 */
export function groupedStatement<T, R>(
  writeBatch: (items: readonly T[]) => Promise<R[]>,
  options: { readonly waitMs: number; readonly fullBatch: number },
): (item: T) => Promise<R> {
  let queue: { item: T; resolve: (value: R) => void; reject: (error: unknown) => void }[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let immediate = false;
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    immediate = false;
    const batch = queue;
    queue = [];
    if (batch.length === 0) return;
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
      queue.push({ item, resolve, reject });
      if (queue.length >= options.fullBatch) {
        if (!immediate) {
          immediate = true;
          setImmediate(flush);
        }
      } else if (timer === undefined && !immediate) {
        timer = setTimeout(flush, options.waitMs);
      }
    });
}
