import { SESSION_ID_MAX_LENGTH } from '@kyc/contracts/webhook-reader';
import { MAX_KEY_LENGTH } from '../idempotency-key.js';
import { WebhookError } from '../webhook-error.js';
import type { InboxDialect, InboxSettings } from './types.js';

/** Longest status the session table holds: every `VERIFICATION_STATUSES` value fits with room. */
const STATUS_MAX_LENGTH = 32;
// Index names get a suffix and Postgres cuts names at 63 bytes: keep room for it.
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,39}(\.[A-Za-z_][A-Za-z0-9_]{0,39})?$/;
export const DEFAULT_INBOX_TABLE = 'kyc_webhook_inbox';

function quote(dialect: InboxDialect, name: string): string {
  const mark = dialect === 'postgres' ? '"' : '`';
  return name
    .split('.')
    .map((part) => `${mark}${part}${mark}`)
    .join('.');
}

/** Validates a table name and quotes it; anything else is refused, never interpolated. */
export function tableNames(dialect: InboxDialect, name: string): Pick<InboxSettings, 'table' | 'sessionsTable'> {
  if (!IDENTIFIER.test(name)) {
    throw new WebhookError(
      'invalid_option',
      'inbox: table must be letters, digits and underscores (at most 40), optionally "schema.table".',
    );
  }
  return { table: quote(dialect, name), sessionsTable: quote(dialect, `${name}_sessions`) };
}

/** The bare table name (no schema), for index names. */
function bare(name: string): string {
  return name.split('.').pop() ?? name;
}

/**
 * The inbox's tables, one statement each (mysql2 refuses several statements in one call).
 * The index on the arrival time keeps `pruneInbox` an index range scan however large the inbox.
 */
export function inboxDdl(dialect: InboxDialect, tableName: string): string[] {
  const { table, sessionsTable } = tableNames(dialect, tableName);
  const name = bare(tableName);
  if (dialect === 'postgres') {
    return [
      `CREATE TABLE IF NOT EXISTS ${table} (
  event_key varchar(${MAX_KEY_LENGTH}) PRIMARY KEY,
  session_id varchar(${SESSION_ID_MAX_LENGTH}) NOT NULL,
  status varchar(${STATUS_MAX_LENGTH}),
  event_at_ms bigint,
  received_at_ms bigint NOT NULL
)`,
      `CREATE INDEX IF NOT EXISTS "${name}_received_at" ON ${table} (received_at_ms)`,
      `CREATE TABLE IF NOT EXISTS ${sessionsTable} (
  session_id varchar(${SESSION_ID_MAX_LENGTH}) PRIMARY KEY,
  status varchar(${STATUS_MAX_LENGTH}),
  event_at_ms bigint NOT NULL,
  applied_at_ms bigint NOT NULL
)`,
      `CREATE INDEX IF NOT EXISTS "${name}_sessions_applied_at" ON ${sessionsTable} (applied_at_ms)`,
    ];
  }
  // utf8mb4_bin: keys compare byte for byte, as on Postgres (the default collation ignores case).
  return [
    `CREATE TABLE IF NOT EXISTS ${table} (
  event_key varchar(${MAX_KEY_LENGTH}) NOT NULL PRIMARY KEY,
  session_id varchar(${SESSION_ID_MAX_LENGTH}) NOT NULL,
  status varchar(${STATUS_MAX_LENGTH}) NULL,
  event_at_ms bigint NULL,
  received_at_ms bigint NOT NULL,
  INDEX \`${name}_received_at\` (received_at_ms)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
    `CREATE TABLE IF NOT EXISTS ${sessionsTable} (
  session_id varchar(${SESSION_ID_MAX_LENGTH}) NOT NULL PRIMARY KEY,
  status varchar(${STATUS_MAX_LENGTH}) NULL,
  event_at_ms bigint NOT NULL,
  applied_at_ms bigint NOT NULL,
  INDEX \`${name}_sessions_applied_at\` (applied_at_ms)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
  ];
}

/** The statements of one delivery, built once per inbox. Placeholders are `?`, in order. */
export interface InboxStatements {
  /** Bounds every lock wait of this transaction (the key, the session row). */
  readonly lockTimeout: (ms: number) => readonly [string, readonly unknown[]];
  /** Inserts the event's key; affects 0 rows when it is already there (committed). */
  readonly insertKey: string;
  /** Finds the event's key: still there right before the commit, or the transaction was lost. */
  readonly findKey: string;
  /** Inserts the session's first result; affects 0 rows when the session has one. */
  readonly insertSession: string;
  /** Reads and locks the session's newest result. */
  readonly lockSession: string;
  readonly updateSession: string;
  /** Deletes up to a batch of keys older than a time. */
  readonly pruneKeys: string;
  readonly pruneSessions: string;
}

export function inboxStatements(dialect: InboxDialect, settings: InboxSettings): InboxStatements {
  const { table, sessionsTable } = settings;
  const pg = dialect === 'postgres';
  const ignore = (insert: string, key: string) =>
    pg ? `INSERT INTO ${insert} ON CONFLICT (${key}) DO NOTHING` : `INSERT IGNORE INTO ${insert}`;
  return {
    lockTimeout: pg
      ? // set_config(…, true) is SET LOCAL: it ends with the transaction.
        (ms) => ['SELECT set_config(?, ?, true)', ['lock_timeout', `${ms}ms`]]
      : // InnoDB counts whole seconds; the session setting stays on the connection.
        (ms) => ['SET SESSION innodb_lock_wait_timeout = ?', [Math.max(1, Math.ceil(ms / 1000))]],
    insertKey: ignore(
      `${table} (event_key, session_id, status, event_at_ms, received_at_ms) VALUES (?, ?, ?, ?, ?)`,
      'event_key',
    ),
    findKey: `SELECT 1 AS found FROM ${table} WHERE event_key = ?`,
    insertSession: ignore(
      `${sessionsTable} (session_id, status, event_at_ms, applied_at_ms) VALUES (?, ?, ?, ?)`,
      'session_id',
    ),
    lockSession: `SELECT status, event_at_ms FROM ${sessionsTable} WHERE session_id = ? FOR UPDATE`,
    updateSession: `UPDATE ${sessionsTable} SET status = ?, event_at_ms = ?, applied_at_ms = ? WHERE session_id = ?`,
    pruneKeys: pg
      ? `DELETE FROM ${table} WHERE event_key IN (SELECT event_key FROM ${table} WHERE received_at_ms < ? ORDER BY received_at_ms LIMIT ?)`
      : `DELETE FROM ${table} WHERE received_at_ms < ? ORDER BY received_at_ms LIMIT ?`,
    pruneSessions: pg
      ? `DELETE FROM ${sessionsTable} WHERE session_id IN (SELECT session_id FROM ${sessionsTable} WHERE applied_at_ms < ? ORDER BY applied_at_ms LIMIT ?)`
      : `DELETE FROM ${sessionsTable} WHERE applied_at_ms < ? ORDER BY applied_at_ms LIMIT ?`,
  };
}
