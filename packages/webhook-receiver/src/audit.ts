/**
 * The receiver's tamper-evident audit trail, on every runtime: the entry format, the callback
 * sink, and `verifyAuditLog`. The JSON Lines file sink is in `@kyc/webhook-receiver/audit-file`
 * (Node), the Postgres sink in `@kyc/webhook-receiver/postgres`. See docs/audit.md.
 *
 * @packageDocumentation
 */
export { auditTrail } from './audit/audit-trail.js';
export { type CallbackAuditSinkOptions, callbackAuditSink } from './audit/callback-sink.js';
export { canonicalJson } from './audit/canonical-json.js';
export { chainAuditRecords, GENESIS_HASH, hashAuditEntry, sha256Hex } from './audit/hash-audit-entry.js';
export type {
  AuditAppendOptions,
  AuditEntry,
  AuditFailurePolicy,
  AuditHead,
  AuditOptions,
  AuditRecord,
  AuditSignatureHeaders,
  AuditSink,
  Sha256,
} from './audit/types.js';
export {
  type AuditBreakReason,
  type AuditVerification,
  type VerifyAuditLogOptions,
  verifyAuditLog,
} from './audit/verify-audit-log.js';
