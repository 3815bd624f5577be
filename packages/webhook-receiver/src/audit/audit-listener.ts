import { DEFAULT_RETRY_AFTER_SECONDS, errorAnswer } from '../receiver/answers.js';
import { errorFields } from '../receiver/error-fields.js';
import type { RequestFinished, RequestFinishedListener } from '../receiver/request-finished.js';
import type { ReceiverAnswer, ReceiverLogger } from '../receiver/types.js';
import { APPEND_WITHIN, type QueuedSink } from './append-queue.js';
import { buildAuditRecord, type RecordOptions } from './build-audit-record.js';
import type { AuditRecord, AuditSink } from './types.js';

/** The `auditTrail` options after validation. */
export interface ResolvedAudit extends RecordOptions {
  readonly sink: AuditSink;
  readonly failClosed: boolean;
  readonly timeoutMs: number;
}

/**
 * Appends, giving up after `timeoutMs`: the sink is told (so it drops the record if still queued)
 * and the wait ends. For a sink of the customer's own: an AbortController, a timer and a race.
 */
function appendWithin(sink: AuditSink, record: AuditRecord, timeoutMs: number): Promise<unknown> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`the audit sink did not answer within ${timeoutMs} ms`);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  return Promise.race([sink.append(record, { signal: controller.signal }), timeout]).finally(() => clearTimeout(timer));
}

/** The record as a log line may carry it: no body (personal data). */
function logFieldsOf(record: AuditRecord): Record<string, unknown> {
  const { body: _body, bodyBase64: _bodyBase64, ...rest } = record;
  return rest;
}

/**
 * Writes one audit entry per finished request, and applies the failure policy: fail closed, a
 * 200 whose entry was not written becomes 503 + `Retry-After` (the service delivers again; the
 * redelivery is recorded, as a duplicate when the handler had already succeeded), while any
 * other answer — already a failure the service retries — stands; fail open, every answer stands.
 * Either way the lost entry goes to the logger (without the body), so it can be restored by hand.
 * The package's own sinks are given the time limit itself (one timer per sink, see
 * `appendQueue`) and this policy, so a request costs one promise: the sink's.
 */
export function auditListener(audit: ResolvedAudit, logger: ReceiverLogger): RequestFinishedListener {
  const { sink, timeoutMs } = audit;
  const queued = (sink as Partial<QueuedSink>)[APPEND_WITHIN];
  const failed = (finished: RequestFinished, record: AuditRecord | undefined, error: unknown) => {
    const closing = audit.failClosed && finished.answer.status === 200;
    logger.error?.(
      closing
        ? 'audit entry not written; answered 503 so the service delivers again'
        : 'audit entry not written; the answer stands',
      { ...(record === undefined ? {} : { auditRecord: logFieldsOf(record) }), ...errorFields(error) },
    );
    return closing ? errorAnswer(503, 'audit_unavailable', DEFAULT_RETRY_AFTER_SECONDS) : undefined;
  };
  const written = (): undefined => undefined;
  // The package's own sinks settle with this listener's answer (`failed` and the request passed,
  // not a closure made per request); a sink of the customer's own goes through a race and a `.then`.
  const write: (finished: RequestFinished, record: AuditRecord) => Promise<ReceiverAnswer | undefined> =
    typeof queued === 'function'
      ? (finished, record) => queued(record, timeoutMs, failed, finished)
      : (finished, record) =>
          appendWithin(sink, record, timeoutMs).then(written, (error: unknown) => failed(finished, record, error));
  return (finished) => {
    let built: AuditRecord | Promise<AuditRecord>;
    try {
      built = buildAuditRecord(finished, audit);
    } catch (error) {
      return failed(finished, undefined, error);
    }
    if (built instanceof Promise) {
      return built.then(
        (record) => write(finished, record),
        (error: unknown) => failed(finished, undefined, error),
      );
    }
    return write(finished, built);
  };
}
