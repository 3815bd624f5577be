/** Options of {@link groupedStatement}. */
export interface GroupedStatementOptions {
  readonly waitMs: number;
  readonly fullBatch: number;
  /**
   * Whether a failed batch may be the fault of one of its items (bad data, a violated
   * constraint): each item is then written again alone, so one bad item fails only its own call.
   * Default: never (a lost connection fails every call at once, without one retry per item).
   */
  readonly retryEachOn?: (error: unknown) => boolean;
}

interface Entry<T, R> {
  readonly item: T;
  readonly resolve: (value: R) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Calls that may share one statement: each call's promise settles with its own result after that
 * statement's commit. A call made with nothing else pending goes out after `waitMs` (others
 * arriving meanwhile join it) or as soon as `fullBatch` calls are waiting; fewer round trips and
 * commits under load, at most `waitMs` more before an idle result is recorded.
 */
export function groupedStatement<T, R>(
  writeBatch: (items: readonly T[]) => Promise<R[]>,
  options: GroupedStatementOptions,
): (item: T) => Promise<R> {
  let queue: Entry<T, R>[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let immediate = false;
  const write = (batch: readonly Entry<T, R>[]): void => {
    writeBatch(batch.map((entry) => entry.item)).then(
      (results) => {
        batch.forEach((entry, index) => {
          entry.resolve(results[index] as R);
        });
      },
      (error: unknown) => {
        // A statement is atomic: nothing of the failed batch was written, so each item may be
        // written again on its own (a result fenced by its lease token is recorded at most once).
        if (batch.length > 1 && options.retryEachOn?.(error) === true) {
          for (const entry of batch) write([entry]);
          return;
        }
        for (const entry of batch) entry.reject(error);
      },
    );
  };
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    immediate = false;
    const batch = queue;
    queue = [];
    if (batch.length > 0) write(batch);
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
