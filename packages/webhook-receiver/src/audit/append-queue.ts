import type { AuditAppendOptions, AuditEntry, AuditRecord } from './types.js';

/** What the receiver's caller makes of a record that was not written (see `appendWithin`). */
export type AppendFailed<C, R> = (context: C, record: AuditRecord, error: unknown) => R;

interface Pending {
  readonly record: AuditRecord;
  /** `performance.now()` past which the caller stops waiting; Infinity when it waits as long as it takes. */
  readonly deadline: number;
  readonly timeoutMs: number;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** `appendWithin`'s: the promise then resolves with undefined, or with what this makes of the error. */
  readonly failed: AppendFailed<unknown, unknown> | undefined;
  readonly context: unknown;
  settled: boolean;
}

/**
 * Where a sink built on {@link appendQueue} keeps `appendWithin`, for the receiver's audit trail to
 * find (`Symbol.for`: two copies of the package, ESM and CommonJS, still agree). Not part of
 * `AuditSink`: a sink of the customer's own is given a signal instead.
 */
export const APPEND_WITHIN: unique symbol = Symbol.for('@kyc/webhook-receiver.appendWithin') as never;

/** A sink that has the receiver's own way in. */
export interface QueuedSink {
  readonly [APPEND_WITHIN]: AppendQueue['appendWithin'];
}

/** The sinks' queue: what `AuditSink.append` does, and the receiver's own way in with a time limit. */
export interface AppendQueue {
  /** `AuditSink.append`: a record whose `signal` aborts while it still waits is dropped. */
  append(record: AuditRecord, options?: AuditAppendOptions): Promise<AuditEntry>;
  /**
   * The receiver's: a time limit and no signal; after `timeoutMs` the record, if still waiting,
   * is dropped (one already being written may still land) and the caller fails. One timer for
   * the whole queue, rather than a timer, an AbortController and a race for every request. It
   * resolves with undefined once the record is written, or with `failed(context, record, error)`
   * (rejecting only if that throws): the audit listener's answer itself, so that a request costs
   * this one promise and no `.then` layer or closure of its own.
   */
  appendWithin<C, R>(
    record: AuditRecord,
    timeoutMs: number,
    failed: AppendFailed<C, R>,
    context: C,
  ): Promise<R | undefined>;
}

/** Runs `run` once the current work has settled; see {@link appendQueue}. */
export type Defer = (run: () => void) => void;

function settle(item: Pending, entry: AuditEntry | undefined, error?: unknown): void {
  if (item.settled) return;
  item.settled = true;
  const { failed } = item;
  if (failed === undefined) {
    if (entry === undefined) item.reject(error);
    else item.resolve(entry);
  } else if (entry !== undefined) item.resolve(undefined);
  else {
    try {
      item.resolve(failed(item.context, item.record, error));
    } catch (thrown) {
      item.reject(thrown);
    }
  }
}

/**
 * Orders concurrent appends into one chain and groups them: while one batch is being written,
 * new records wait, then go out together in the next batch (one write and one fsync or one
 * INSERT for many requests). An idle queue starts its next batch through `defer` rather than at
 * once, so that the requests of one turn of the event loop share it (Node's sinks pass
 * `setImmediate`; the default waits for the microtasks queued so far). `flush` gets the records
 * in arrival order and returns their entries, or throws and stores none of them; each caller
 * learns its own entry or the error.
 */
export function appendQueue(
  flush: (records: readonly AuditRecord[]) => Promise<readonly AuditEntry[]>,
  { maxBatch = 256, defer = queueMicrotask }: { readonly maxBatch?: number; readonly defer?: Defer } = {},
): AppendQueue {
  const waiting: Pending[] = [];
  let writing: readonly Pending[] = [];
  let running = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timerAt = Number.POSITIVE_INFINITY;

  const stopTimer = () => {
    clearTimeout(timer);
    timer = undefined;
    timerAt = Number.POSITIVE_INFINITY;
  };

  /** Rejects every caller whose time is up (dropping its record if it still waits), then waits for the next. */
  const expire = () => {
    stopTimer();
    const now = performance.now();
    let next = Number.POSITIVE_INFINITY;
    for (const item of writing) {
      if (item.settled) continue;
      if (item.deadline <= now) settle(item, undefined, timedOut(item));
      else next = Math.min(next, item.deadline);
    }
    for (let index = 0; index < waiting.length; ) {
      const item = waiting[index] as Pending;
      if (item.deadline <= now) {
        waiting.splice(index, 1);
        settle(item, undefined, timedOut(item));
      } else {
        next = Math.min(next, item.deadline);
        index++;
      }
    }
    if (next !== Number.POSITIVE_INFINITY) arm(next);
  };
  const arm = (deadline: number) => {
    if (deadline >= timerAt) return;
    clearTimeout(timer);
    timerAt = deadline;
    timer = setTimeout(expire, Math.max(0, deadline - performance.now()));
  };
  const timedOut = (item: Pending) => new Error(`the audit sink did not answer within ${item.timeoutMs} ms`);

  const drain = async () => {
    while (waiting.length > 0) {
      const batch = waiting.splice(0, maxBatch);
      writing = batch;
      try {
        const entries = await flush(batch.map((item) => item.record));
        for (let index = 0; index < batch.length; index++) {
          const entry = entries[index];
          const item = batch[index] as Pending;
          if (entry === undefined)
            settle(item, undefined, new Error('audit sink: the flush returned fewer entries than records'));
          else settle(item, entry);
        }
      } catch (error) {
        for (const item of batch) settle(item, undefined, error);
      }
    }
    writing = [];
    running = false;
    // Nobody waits: no timer may keep the process alive.
    if (timer !== undefined) stopTimer();
  };
  const start = () => {
    running = true;
    void drain();
  };

  /** Queues an item made by a promise's executor; starts a batch when none runs. */
  const push = <T>(
    record: AuditRecord,
    timeoutMs: number,
    failed: AppendFailed<unknown, unknown> | undefined,
    context: unknown,
  ): [Pending, Promise<T>] => {
    const deadline = timeoutMs === Number.POSITIVE_INFINITY ? timeoutMs : performance.now() + timeoutMs;
    let pending: Pending | undefined;
    const promise = new Promise<T>((resolve, reject) => {
      pending = {
        record,
        deadline,
        timeoutMs,
        resolve: resolve as Pending['resolve'],
        reject,
        failed,
        context,
        settled: false,
      };
    });
    const item = pending as Pending;
    waiting.push(item);
    if (!running) {
      running = true;
      defer(start);
    }
    return [item, promise];
  };

  return {
    append(record, options) {
      const signal = options?.signal;
      if (signal?.aborted) return Promise.reject(signal.reason);
      const [item, promise] = push<AuditEntry>(record, Number.POSITIVE_INFINITY, undefined, undefined);
      // Given up on while still waiting: never written, so the log cannot claim an answer that was not sent.
      signal?.addEventListener(
        'abort',
        () => {
          const index = waiting.indexOf(item);
          if (index === -1) return;
          waiting.splice(index, 1);
          settle(item, undefined, signal.reason);
        },
        { once: true },
      );
      return promise;
    },
    appendWithin<C, R>(record: AuditRecord, timeoutMs: number, failed: AppendFailed<C, R>, context: C) {
      const [item, promise] = push<R | undefined>(record, timeoutMs, failed as AppendFailed<unknown, unknown>, context);
      arm(item.deadline);
      return promise;
    },
  };
}
