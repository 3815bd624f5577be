/**
 * How a request ended, in a small fixed vocabulary that logs, metrics and audit trails share
 * (the finer reason is the `error.code` of the answer's body):
 * - `processed`: the handler ran and succeeded (200);
 * - `duplicate`: the event was processed before, the handler did not run (200);
 * - `stale`: inbox mode, a result older than the one applied to its session: recorded, handler not run (200);
 * - `in_progress`: another delivery of the event is being handled (409);
 * - `unauthorized`: missing, malformed or wrong `Authorization`, or a refused signature (401);
 * - `invalid`: not a POST (405), or a body that is not a webhook (400);
 * - `too_large`: the body is over `maxBodyBytes` (413);
 * - `handler_error`: the handler threw (500, claim released);
 * - `handler_timeout`: the handler outlived `handlerTimeoutMs` (503, claim kept);
 * - `store_unavailable`: the idempotency claim, or (fail-closed) the audit entry of a 200, could not be recorded (503);
 * - `misconfigured`: a framework read or parsed the body before the receiver (500).
 */
export type ReceiveOutcome =
  | 'processed'
  | 'duplicate'
  | 'stale'
  | 'in_progress'
  | 'unauthorized'
  | 'invalid'
  | 'too_large'
  | 'handler_error'
  | 'handler_timeout'
  | 'store_unavailable'
  | 'misconfigured';

/** Why the receiver answered as it did; also the `error.code` of the JSON body. */
export type AnswerCode =
  | 'method_not_allowed'
  | 'missing_auth'
  | 'malformed_auth'
  | 'invalid_auth'
  | 'missing_signature'
  | 'stale_signature'
  | 'invalid_signature'
  | 'body_too_large'
  | 'invalid_body'
  | 'in_progress'
  | 'handler_failed'
  | 'handler_timeout'
  | 'store_unavailable'
  | 'audit_unavailable'
  | 'receiver_misconfigured';
