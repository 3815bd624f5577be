/**
 * The transactional inbox through `kysely` (an optional peer dependency).
 *
 * @module inbox/kysely
 */

export {
  type KyselyInboxOptions,
  type KyselyLike,
  type KyselyTransactionLike,
  kyselyInbox,
} from './inbox/adapters/kysely.js';
