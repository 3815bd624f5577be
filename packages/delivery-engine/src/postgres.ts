/**
 * The Postgres store of `@kyc/delivery-engine`, for many worker processes sharing one
 * database. `pg` is an optional peer dependency: install it next to this package.
 *
 * @packageDocumentation
 */
export type { PgNamedQuery, PgPool, PgPoolClient, PgQueryable, PgResult } from './store/postgres/pg-types.js';
export { type PostgresDeliveryStoreOptions, postgresDeliveryStore } from './store/postgres.js';
