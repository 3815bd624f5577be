import type { AuditEntry, AuditRecord, AuditSink } from './types.js';

interface Pending {
  readonly record: AuditRecord;
  resolve(entry: AuditEntry): void;
  reject(error: unknown): void;
}

/**
 * Orders concurrent appends into one chain and groups them: while one batch is being written,
 * new records wait, then go out together in the next batch (one write and one fsync or one
 * INSERT for many requests). `flush` gets the records in arrival order and returns their
 * entries, or throws and stores none of them; each caller learns its own entry or the error.
 * A record whose `signal` aborts while it still waits is dropped and its caller rejected.
 */
export function appendQueue(
  flush: (records: readonly AuditRecord[]) => Promise<readonly AuditEntry[]>,
  maxBatch = 256,
): AuditSink['append'] {
  const waiting: Pending[] = [];
  let running = false;

  const drain = async () => {
    running = true;
    while (waiting.length > 0) {
      const batch = waiting.splice(0, maxBatch);
      try {
        const entries = await flush(batch.map((item) => item.record));
        batch.forEach((item, index) => {
          const entry = entries[index];
          if (entry === undefined) item.reject(new Error('audit sink: the flush returned fewer entries than records'));
          else item.resolve(entry);
        });
      } catch (error) {
        for (const item of batch) item.reject(error);
      }
    }
    running = false;
  };

  return (record, options) =>
    new Promise<AuditEntry>((resolve, reject) => {
      const signal = options?.signal;
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const item: Pending = { record, resolve, reject };
      // Given up on while still waiting: never written, so the log cannot claim an answer that was not sent.
      signal?.addEventListener(
        'abort',
        () => {
          const index = waiting.indexOf(item);
          if (index === -1) return;
          waiting.splice(index, 1);
          reject(signal.reason);
        },
        { once: true },
      );
      waiting.push(item);
      if (!running) void drain();
    });
}
