/**
 * The transactional inbox through `knex` (an optional peer dependency).
 *
 * @packageDocumentation
 */

export { type KnexLike, knexInbox } from './inbox/adapters/knex.js';
