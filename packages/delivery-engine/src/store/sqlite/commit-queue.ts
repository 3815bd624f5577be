/** A write queued for the next group commit. */
interface QueuedWrite<R> {
  /** Runs inside the batch's transaction; its return value is the write's result. */
  readonly write: () => R;
  /** Runs right after the commit, before durability is confirmed (the owner ends a reservation here). */
  readonly committed: ((result: R) => void) | undefined;
  readonly resolve: (result: R) => void;
  readonly reject: (error: Error) => void;
  /** Kept and written again when the store cannot write, instead of failing (an attempt's result). */
  readonly hold: boolean;
}

/** Why the store cannot write right now, and since when (`performance.now()`). */
export interface Outage {
  readonly error: Error;
  readonly since: number;
}

export interface CommitQueueOptions {
  /** Runs `body` in one write transaction (`BEGIN IMMEDIATE`). */
  readonly transaction: <T>(body: () => T) => T;
  /** Runs first inside every batch's transaction (the owner's record of its attempts in flight). */
  readonly beforeWrites?: () => void;
  /** Resolves once the commits made so far are on stable storage; absent, a commit counts as durable. */
  readonly sync?: () => Promise<void>;
  readonly wrapError: (error: unknown) => Error;
  /**
   * How long a write queued with `{ canWait: true }` may wait for others to share its commit
   * (default 0: the next turn of the event loop). A write without it, or a full batch, commits at
   * the next turn and takes the waiting ones along.
   */
  readonly waitMs?: number;
  /**
   * Whether a failed batch failed because the store cannot write at all (a full disk, an I/O
   * error, the lock taken, the owner fenced off) rather than because of one write in it. Such a
   * batch is not tried again write by write (each would fail the same way, holding the loop):
   * writes pushed with `hold` wait for the store to recover, the others fail.
   */
  readonly isOutage?: (error: unknown) => boolean;
  /**
   * Whether a failed batch met a lock another connection holds for a moment (SQLITE_BUSY from
   * the checkpointer's thread). The whole batch, enqueues too, is tried again shortly; only when
   * the lock outlasts CONTENTION_BUDGET_MS does it count as an outage.
   */
  readonly isContention?: (error: unknown) => boolean;
}

/**
 * How long a batch keeps retrying a lock held elsewhere before the store counts as unable to
 * write. SQLite returned SQLITE_BUSY to the owner's BEGIN IMMEDIATE without waiting out its busy
 * timeout around the checkpointer's RESTART (1 batch in ~10 000 under load, failing an enqueue);
 * that lock is held for milliseconds.
 */
export const CONTENTION_BUDGET_MS = 1000;

/** The pause before each new try of a batch that met a lock: short at first, then longer. */
const CONTENTION_RETRY_MS = [1, 2, 5, 10, 25, 50, 100] as const;

/** How long held writes wait before the next try while the store cannot write, at first and at most. */
const OUTAGE_RETRY_MS = [50, 2000] as const;

/** A batch this large commits at the next turn even if its writes could wait. */
export const FULL_BATCH = 256;

/** A write's failure, told apart from any value a write may return. */
class Failed {
  constructor(readonly error: unknown) {}
}

/**
 * Group commit for a synchronous database: writes queued in the same turn of the event loop run
 * in one transaction at `setImmediate`, and each write's promise settles with its own result once
 * that transaction is durable (committed, and synced when `sync` is given). Enqueues and attempt
 * results arriving together cost one transaction, and with `sync` one fsync, instead of one each.
 *
 * If a batch fails, each of its writes is tried again in a transaction of its own, so one bad
 * write fails only its own promise.
 */
export class CommitQueue {
  readonly #options: CommitQueueOptions;
  #queue: QueuedWrite<unknown>[] = [];
  #scheduled = false;
  #waiting: ReturnType<typeof setTimeout> | undefined;
  #pendingSyncs = new Set<Promise<void>>();
  #outage: Outage | undefined;
  #retryMs: number = OUTAGE_RETRY_MS[0];
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the current run of lock contention began, and how many tries it has had. */
  #contention: { since: number; tries: number } | undefined;

  constructor(options: CommitQueueOptions) {
    this.#options = options;
  }

  /**
   * Queues a write for the next batch. `canWait`: the caller does not wait on this write to go
   * on (an attempt's result, whose HTTP slot is already free), so it may wait up to `waitMs` for
   * others to share its commit; a caller that waits (an enqueue) commits at the next turn.
   */
  push<R>(
    write: () => R,
    committed?: (result: R) => void,
    options?: { readonly canWait?: boolean; readonly hold?: boolean },
  ): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#queue.push({ write, committed, resolve, reject, hold: options?.hold === true } as QueuedWrite<unknown>);
      // While the store cannot write, new writes wait for the next try rather than hammer it.
      if (this.#outage !== undefined) {
        this.#retryLater();
        return;
      }
      const waitMs = this.#options.waitMs ?? 0;
      if (options?.canWait === true && waitMs > 0 && this.#queue.length < FULL_BATCH) this.#wait(waitMs);
      else this.schedule();
    });
  }

  /** Makes sure a batch runs at the next turn, even with nothing queued (`beforeWrites` has something to record). */
  schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => this.flush());
  }

  #wait(waitMs: number): void {
    if (this.#scheduled || this.#waiting !== undefined) return;
    this.#waiting = setTimeout(() => {
      this.#waiting = undefined;
      this.schedule();
    }, waitMs);
  }

  /** Why the store cannot write, while it cannot; `undefined` when the last batch committed. */
  get outage(): Outage | undefined {
    return this.#outage;
  }

  /** Writes waiting in the queue (held results among them). */
  get queued(): number {
    return this.#queue.length;
  }

  /** Writes the queued batch now and waits until every batch so far is durable (for `close()`). */
  async drain(): Promise<void> {
    if (this.#waiting !== undefined) clearTimeout(this.#waiting);
    this.#waiting = undefined;
    if (this.#retryTimer !== undefined) clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    if (this.#scheduled || this.#queue.length > 0) this.flush();
    await Promise.allSettled([...this.#pendingSyncs]);
  }

  flush(): void {
    if (!this.#scheduled && this.#queue.length === 0) return;
    if (this.#waiting !== undefined) clearTimeout(this.#waiting);
    this.#waiting = undefined;
    this.#scheduled = false;
    const batch = this.#queue;
    this.#queue = [];
    const { transaction, beforeWrites, sync, wrapError, isOutage } = this.#options;
    let results: unknown[];
    try {
      results = transaction(() => {
        beforeWrites?.();
        return batch.map((item) => item.write());
      });
      this.#outage = undefined;
      this.#contention = undefined;
      this.#retryMs = OUTAGE_RETRY_MS[0];
    } catch (error) {
      if (this.#options.isContention?.(error) === true && this.#retryAfterContention(batch)) return;
      if (isOutage?.(error) === true) {
        this.#holdThrough(batch, wrapError(error));
        return;
      }
      results = batch.map((item) => {
        try {
          return transaction(() => item.write());
        } catch (error) {
          return new Failed(error);
        }
      });
    }
    const done: [QueuedWrite<unknown>, unknown][] = [];
    batch.forEach((item, index) => {
      const result = results[index];
      if (result instanceof Failed) item.reject(wrapError(result.error));
      else {
        item.committed?.(result);
        done.push([item, result]);
      }
    });
    if (done.length === 0) return;
    if (sync === undefined) {
      for (const [item, result] of done) item.resolve(result);
      return;
    }
    const synced = sync().then(
      () => {
        for (const [item, result] of done) item.resolve(result);
      },
      (error: unknown) => {
        for (const [item] of done) item.reject(wrapError(error));
      },
    );
    this.#pendingSyncs.add(synced);
    void synced.finally(() => this.#pendingSyncs.delete(synced));
  }

  /** Puts the batch back for another try soon; false once the contention has lasted too long. */
  #retryAfterContention(batch: QueuedWrite<unknown>[]): boolean {
    const now = performance.now();
    this.#contention ??= { since: now, tries: 0 };
    if (now - this.#contention.since >= CONTENTION_BUDGET_MS) {
      this.#contention = undefined;
      return false;
    }
    const pause = CONTENTION_RETRY_MS[Math.min(this.#contention.tries, CONTENTION_RETRY_MS.length - 1)];
    this.#contention.tries++;
    this.#queue = batch.concat(this.#queue);
    if (this.#waiting !== undefined) clearTimeout(this.#waiting);
    this.#waiting = setTimeout(() => {
      this.#waiting = undefined;
      this.schedule();
    }, pause);
    return true;
  }

  /** The store cannot write: held writes go back to the front of the queue and are tried again later. */
  #holdThrough(batch: QueuedWrite<unknown>[], error: Error): void {
    this.#outage ??= { error, since: performance.now() };
    for (const item of batch) if (!item.hold) item.reject(error);
    this.#queue = batch.filter((item) => item.hold);
    if (this.#queue.length > 0) this.#retryLater();
  }

  #retryLater(): void {
    if (this.#retryTimer !== undefined) return;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.schedule();
    }, this.#retryMs);
    this.#retryMs = Math.min(this.#retryMs * 2, OUTAGE_RETRY_MS[1]);
  }

  /** Fails every write still queued (held ones too): the store is closing and cannot write them. */
  abandon(error: Error): void {
    if (this.#retryTimer !== undefined) clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    // A batch waiting out a lock held elsewhere waits on this timer: it must not fire on a closed file.
    if (this.#waiting !== undefined) clearTimeout(this.#waiting);
    this.#waiting = undefined;
    this.#contention = undefined;
    // A flush already scheduled (a retry that just fired) then finds nothing to run.
    this.#scheduled = false;
    const left = this.#queue;
    this.#queue = [];
    for (const item of left) item.reject(error);
  }
}
