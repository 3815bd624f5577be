import { DEFAULT_INBOX_LOCK_TIMEOUT_MS, MAX_INBOX_LOCK_TIMEOUT_MS } from '@kyc/contracts/webhook-reader';
import type { InboxRunner } from '../receiver/resolve-options.js';
import { WebhookError } from '../webhook-error.js';
import type { PreparedInbox } from './prepared-inbox.js';
import { runInbox } from './run-inbox.js';
import { DEFAULT_INBOX_TABLE, type InboxStatements, inboxStatements, tableNames } from './statements.js';
import type { Inbox, InboxDatabase, InboxOptions, InboxSettings } from './types.js';

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
  const statements = inboxStatements(database.dialect, settings);
  const ready: PreparedInbox<Tx> = { database, settings, statements };
  // The receiver calls `run` for each delivery: the runner comes with the inbox, so a receiver
  // without one does not bundle it (as `auditTrail()` carries the audit trail). Not enumerable,
  // so a copy of the object (`{ ...inbox }`) is refused, as before, rather than half-working.
  const run: InboxRunner = (receiver, event, input, trace) =>
    runInbox(receiver, ready as PreparedInbox<unknown>, event, input, trace);
  const inbox = Object.defineProperty({ database, settings }, 'run', { value: run }) as Inbox<Tx>;
  prepared.set(inbox, statements);
  return Object.freeze(inbox);
}

/** The inbox with its statements; refuses an object that `defineInbox` (or an adapter) did not make. */
export function prepareInbox<Tx>(inbox: Inbox<Tx>, where: string): PreparedInbox<Tx> {
  const statements = typeof inbox === 'object' && inbox !== null ? prepared.get(inbox) : undefined;
  if (statements === undefined)
    throw new WebhookError(
      'invalid_option',
      `${where}: inbox must be made by an adapter (pgInbox, drizzleInbox, …) or defineInbox.`,
    );
  return { database: inbox.database, settings: inbox.settings, statements };
}
