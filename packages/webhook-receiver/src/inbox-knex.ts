/**
 * The transactional inbox through `knex` (an optional peer dependency).
 *
 * @packageDocumentation
 */

export { knexInbox } from './inbox/adapters/knex.js';
