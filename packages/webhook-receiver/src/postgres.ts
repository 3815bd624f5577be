/**
 * A Postgres idempotency store for receivers running as several replicas, over any
 * `pg`-compatible `query` function.
 *
 * @packageDocumentation
 */

export { createAuditTable, type PostgresAuditOptions } from './audit/postgres-audit-table.js';
export { type PostgresAuditSinkOptions, postgresAuditSink } from './audit/postgres-sink.js';
export { readPostgresAuditLog } from './audit/read-postgres-audit-log.js';
export {
  createIdempotencyTable,
  type PostgresIdempotencyStoreOptions,
  type PostgresLikeClient,
  postgresIdempotencyStore,
} from './idempotency/postgres.js';
export type { ClaimOptions, ClaimResult, Clock, CompleteOptions, IdempotencyStore } from './idempotency/store.js';
