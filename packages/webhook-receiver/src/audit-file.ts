/**
 * The JSON Lines file sink of the audit trail, and a reader for its files (Node). See docs/audit.md.
 *
 * @packageDocumentation
 */
export { type AuditFile, auditFileName, listAuditFiles } from './audit/audit-files.js';
export { type JsonlAuditSinkOptions, jsonlAuditSink } from './audit/jsonl-file-sink.js';
export { nodeSha256 } from './audit/node-sha256.js';
export { readAuditFile } from './audit/read-audit-file.js';
export { type FilesVerification, verifyAuditFiles } from './audit/verify-audit-files.js';
