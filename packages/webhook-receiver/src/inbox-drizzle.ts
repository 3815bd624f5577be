/**
 * The transactional inbox through `drizzle` (an optional peer dependency).
 *
 * @module inbox/drizzle
 */

export {
  type DrizzleInboxOptions,
  type DrizzleLike,
  type DrizzleTransactionLike,
  drizzleInbox,
} from './inbox/adapters/drizzle.js';
