import { WebhookError } from '../webhook-error.js';
import { APPEND_WITHIN, appendQueue, type QueuedSink } from './append-queue.js';
import { chainBatch, sha256Hex, textSha256 } from './hash-audit-entry.js';
import type { AuditEntry, AuditHead, AuditSink, Sha256 } from './types.js';

/** Options of {@link callbackAuditSink}. */
export interface CallbackAuditSinkOptions {
  /**
   * Where the chain stands in the store `write` appends to (the last entry's `seq` and `hash`),
   * when it already holds entries; the chain continues from it. Default: a new log.
   */
  readonly head?: AuditHead;
  /** The SHA-256 for bodies and the chain; default Web Crypto (on Node, `nodeSha256` is much cheaper). */
  readonly sha256?: Sha256;
}

/**
 * An audit sink that hands each batch of chained entries to your function, for any store the
 * package does not ship (a queue, an object store, a SIEM). Entries arrive in chain order; the
 * next batch waits until `write` resolves, and a rejection stores none of the batch (the chain
 * does not advance, and the receiver applies its failure policy). Runs on every runtime.
 *
 * @example
 * const sink = callbackAuditSink(async (entries) => {
 *   await bucket.put(`audit/${entries[0].seq}.jsonl`, entries.map((e) => JSON.stringify(e)).join('\n'));
 * });
 */
export function callbackAuditSink(
  write: (entries: readonly AuditEntry[]) => Promise<void> | void,
  options: CallbackAuditSinkOptions = {},
): AuditSink {
  if (typeof write !== 'function')
    throw new WebhookError('invalid_option', 'callbackAuditSink: write must be a function.');
  const start = options.head;
  if (
    start !== undefined &&
    (!Number.isSafeInteger(start.seq) ||
      start.seq < 0 ||
      typeof start.hash !== 'string' ||
      !/^[0-9a-f]{64}$/.test(start.hash))
  ) {
    throw new WebhookError(
      'invalid_option',
      'callbackAuditSink: head must be { seq: a whole number, hash: 64 hex digits }.',
    );
  }
  let head: AuditHead | undefined = start;
  const hashText = textSha256(options.sha256 ?? sha256Hex);
  const queue = appendQueue(async (records) => {
    const { entries } = await chainBatch(head, records, hashText, false);
    await write(entries);
    const last = entries[entries.length - 1];
    if (last !== undefined) head = { seq: last.seq, hash: last.hash };
    return entries;
  });
  const sink: AuditSink & QueuedSink = { append: queue.append, [APPEND_WITHIN]: queue.appendWithin };
  return options.sha256 === undefined ? sink : { ...sink, sha256: options.sha256 };
}
