import { DEFAULT_INBOX_RETENTION_MS } from '@kyc/contracts/webhook-reader';
import { WebhookError } from '../webhook-error.js';
import { classifyDatabaseError } from './database-errors.js';
import { prepareInbox } from './define-inbox.js';
import { missingTable } from './open-event.js';
import { inboxDdl } from './statements.js';
import type { Inbox, InboxTransaction } from './types.js';

async function inTransaction<Tx, T>(inbox: Inbox<Tx>, work: (tx: InboxTransaction<Tx>) => Promise<T>): Promise<T> {
  const tx = await inbox.database.begin();
  let result: T;
  try {
    result = await work(tx);
  } catch (error) {
    await tx.rollback().catch(() => undefined);
    throw error;
  }
  await tx.commit();
  return result;
}

/**
 * Creates the inbox's two tables and their indexes if they do not exist (the same statements as
 * `sql/inbox.postgres.sql` and `sql/inbox.mysql.sql` in this package, for your own migrations).
 * Run it at deploy time or at start-up; running it again changes nothing.
 *
 * @example
 * await migrateInbox(pgInbox(pool));
 */
export async function migrateInbox<Tx>(inbox: Inbox<Tx>): Promise<void> {
  const { database, settings } = prepareInbox(inbox, 'migrateInbox');
  // MySQL commits each CREATE on its own anyway; one transaction makes it all-or-nothing on Postgres.
  await inTransaction(inbox, async (tx) => {
    for (const statement of inboxDdl(database.dialect, settings.tableName)) await tx.query(statement, []);
  });
}

/** Options of {@link pruneInbox}. */
export interface PruneInboxOptions {
  /** Keys older than this are deleted. Default 30 days (`DEFAULT_INBOX_RETENTION_MS`). */
  readonly olderThanMs?: number;
  /** Rows deleted per statement, so a large backlog never holds one long lock. Default 1000. */
  readonly batchSize?: number;
  /** Milliseconds since the epoch; default `Date.now`. */
  readonly now?: () => number;
}

/** What {@link pruneInbox} deleted. */
export interface PruneInboxResult {
  readonly keys: number;
  readonly sessions: number;
}

/**
 * Deletes keys (and sessions' newest results) older than the retention window, in batches of
 * short transactions over the arrival-time index. Schedule it (e.g. daily). A redelivery of an
 * event whose key was pruned is processed as a new event: keep the window longer than any
 * redelivery you may make (the default, 30 days, is over four times the 7-day horizon).
 *
 * @example
 * setInterval(() => pruneInbox(inbox).catch(console.error), 24 * 3600_000);
 */
export async function pruneInbox<Tx>(inbox: Inbox<Tx>, options: PruneInboxOptions = {}): Promise<PruneInboxResult> {
  const { statements, settings } = prepareInbox(inbox, 'pruneInbox');
  const olderThanMs = options.olderThanMs ?? DEFAULT_INBOX_RETENTION_MS;
  const batchSize = options.batchSize ?? 1000;
  if (!Number.isInteger(olderThanMs) || olderThanMs <= 0)
    throw new WebhookError('invalid_option', 'pruneInbox: olderThanMs must be a positive integer.');
  if (!Number.isInteger(batchSize) || batchSize <= 0)
    throw new WebhookError('invalid_option', 'pruneInbox: batchSize must be a positive integer.');
  const before = (options.now ?? Date.now)() - olderThanMs;
  const drain = async (sql: string) => {
    let total = 0;
    for (;;) {
      const { affected } = await inTransaction(inbox, (tx) => tx.query(sql, [before, batchSize]));
      total += affected;
      if (affected < batchSize) return total;
    }
  };
  try {
    return { keys: await drain(statements.pruneKeys), sessions: await drain(statements.pruneSessions) };
  } catch (error) {
    throw classifyDatabaseError(error) === 'missing_table' ? missingTable(settings, error) : error;
  }
}
