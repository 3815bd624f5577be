/**
 * The transactional inbox: the event's key and the handler's writes commit in one transaction
 * on your database, so the effect happens exactly once. The adapters (`/inbox/pg`,
 * `/inbox/drizzle`, `/inbox/kysely`, `/inbox/knex`, `/inbox/mysql2`, `/inbox/prisma`) each live
 * in their own entry, so an application pays only for the one it imports.
 *
 * @packageDocumentation
 */

export { defineInbox } from './inbox/define-inbox.js';
export { migrateInbox, type PruneInboxOptions, type PruneInboxResult, pruneInbox } from './inbox/migrate.js';
export { inboxDdl } from './inbox/statements.js';
export type {
  Inbox,
  InboxDatabase,
  InboxDialect,
  InboxOpening,
  InboxOptions,
  InboxOutcome,
  InboxQueryResult,
  InboxSettings,
  InboxTransaction,
  StaleResultPolicy,
  SupersededBy,
} from './inbox/types.js';
