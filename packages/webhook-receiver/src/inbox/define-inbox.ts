import { DEFAULT_INBOX_LOCK_TIMEOUT_MS, MAX_INBOX_LOCK_TIMEOUT_MS } from '@kyc/contracts/webhook-reader';
import { WebhookError } from '../webhook-error.js';
import { DEFAULT_INBOX_TABLE, type InboxStatements, inboxStatements, tableNames } from './statements.js';
import type { Inbox, InboxDatabase, InboxOptions, InboxSettings } from './types.js';

/** An inbox with its statements built once, as the receiver, `migrateInbox` and `pruneInbox` use it. */
export interface PreparedInbox<Tx> extends Inbox<Tx> {
  readonly statements: InboxStatements;
}

/**
 * An error for `InboxTransaction.commit()` to reject with when the database certainly did not
 * commit (as opposed to a lost connection, where nobody knows): the receiver then answers 500
 * like a failed handler, since nothing of the delivery was kept.
 */
export function rolledBackError(message: string): Error {
  return Object.assign(new Error(message), { inboxRolledBack: true });
}

/** Whether `commit()` rejected with {@link rolledBackError}. */
export function isRolledBack(error: unknown): boolean {
  return error instanceof Error && (error as { inboxRolledBack?: unknown }).inboxRolledBack === true;
}

const prepared = /* @__PURE__ */ new WeakMap<Inbox<unknown>, InboxStatements>();

function invalid(message: string): never {
  throw new WebhookError('invalid_option', `inbox: ${message}`);
}

/**
 * A transactional inbox over your own {@link InboxDatabase} (the adapters call this for you).
 *
 * @throws `WebhookError` `invalid_option` when the database or an option is wrong.
 * @example
 * const inbox = defineInbox({ dialect: 'postgres', begin: async () => myTransaction() });
 */
export function defineInbox<Tx>(database: InboxDatabase<Tx>, options: InboxOptions = {}): Inbox<Tx> {
  if (typeof database?.begin !== 'function') invalid('the database must have a begin() method.');
  if (database.dialect !== 'postgres' && database.dialect !== 'mysql')
    invalid('the database dialect must be "postgres" or "mysql".');
  const lockTimeoutMs = options.lockTimeoutMs ?? DEFAULT_INBOX_LOCK_TIMEOUT_MS;
  if (!Number.isInteger(lockTimeoutMs) || lockTimeoutMs <= 0 || lockTimeoutMs > MAX_INBOX_LOCK_TIMEOUT_MS)
    invalid(`lockTimeoutMs must be a positive integer of at most ${MAX_INBOX_LOCK_TIMEOUT_MS}.`);
  const staleResults = options.staleResults ?? 'skip';
  if (staleResults !== 'skip' && staleResults !== 'run') invalid('staleResults must be "skip" or "run".');
  const tableName = options.table ?? DEFAULT_INBOX_TABLE;
  if (database.dialect === 'mysql' && tableName.includes('.'))
    invalid('on MySQL/MariaDB the table is a bare name (the connection chooses the database).');
  const settings: InboxSettings = Object.freeze({
    ...tableNames(database.dialect, tableName),
    tableName,
    lockTimeoutMs,
    staleResults,
  });
  const inbox: Inbox<Tx> = Object.freeze({ database, settings });
  prepared.set(inbox, inboxStatements(database.dialect, settings));
  return inbox;
}

/** The inbox with its statements; refuses an object that `defineInbox` (or an adapter) did not make. */
export function prepareInbox<Tx>(inbox: Inbox<Tx>, where: string): PreparedInbox<Tx> {
  const statements = typeof inbox === 'object' && inbox !== null ? prepared.get(inbox) : undefined;
  if (statements === undefined)
    throw new WebhookError(
      'invalid_option',
      `${where}: inbox must be made by an adapter (pgInbox, drizzleInbox, …) or defineInbox.`,
    );
  return { ...inbox, statements };
}
