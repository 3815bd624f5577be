/**
 * The transactional inbox through `knex` (an optional peer dependency).
 *
 * @module inbox/knex
 */

export { type KnexLike, knexInbox } from './inbox/adapters/knex.js';
