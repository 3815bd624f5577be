/**
 * The transactional inbox through `drizzle` (an optional peer dependency).
 *
 * @packageDocumentation
 */

export {
  type DrizzleInboxOptions,
  type DrizzleLike,
  type DrizzleTransactionLike,
  drizzleInbox,
} from './inbox/adapters/drizzle.js';
