/**
 * The transactional inbox on Postgres through `pg` (an optional peer dependency).
 *
 * @module inbox/pg
 */

export { type PgClientLike, type PgInboxOptions, type PgPoolLike, pgInbox } from './inbox/adapters/pg.js';
