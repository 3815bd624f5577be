/**
 * A Postgres idempotency store for receivers running as several replicas, over any
 * `pg`-compatible `query` function.
 *
 * @packageDocumentation
 */
export {
  createIdempotencyTable,
  type PostgresIdempotencyStoreOptions,
  type PostgresLikeClient,
  postgresIdempotencyStore,
} from './idempotency/postgres.js';
export type { ClaimOptions, ClaimResult, Clock, CompleteOptions, IdempotencyStore } from './idempotency/store.js';
