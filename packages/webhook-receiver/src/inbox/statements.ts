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
  /**
   * Postgres: the whole opening of a delivery in one round trip (see `openPostgres`); params
   * `[lock timeout, key, session, status, event time, arrival]`. `undefined` on MySQL, which
   * has no data-modifying CTE: there the statements below run one by one.
   */
  readonly open: string | undefined;
  /**
   * MySQL: bounds every lock wait of this transaction (the key, the session row). A session
   * setting: it outlives the transaction, so it is sent only to a connection not already holding it.
   */
  readonly lockTimeout: (ms: number) => readonly [string, readonly unknown[]];
  /** Inserts the event's key; affects 0 rows when it is already there (committed). */
  readonly insertKey: string;
  /** Finds the event's key: still there right before the commit, or the transaction was lost. */
  readonly findKey: string;
  /** Inserts the session's first result; affects 0 rows when the session has one. */
  readonly insertSession: string;
  /** Reads and locks the session's newest result. */
  readonly lockSession: string;
  /** Replaces the session's newest result if older than this event's; affects 0 rows otherwise. */
  readonly updateSession: string;
  /** Deletes up to a batch of keys older than a time. */
  readonly pruneKeys: string;
  readonly pruneSessions: string;
}

/**
 * One statement, one round trip, for what took four to six (lock timeout; key; session insert,
 * or session read then update): every statement costs the Node process about as much CPU as
 * the handler's own UPDATE, and the inbox's cost is counted against that UPDATE's transaction.
 * - `timeout` runs first: the key's INSERT reads its row, so `lock_timeout` (local to the
 *   transaction, as `SET LOCAL`) is in force before that INSERT can wait on a concurrent copy.
 * - `key` inserts the event's key; a copy held by another open transaction waits here.
 * - `applied` runs only on the key's RETURNING row (a duplicate touches no session) and only
 *   with an event time; it inserts the session's first result or, under the row lock that
 *   ON CONFLICT DO UPDATE takes even when its WHERE is false, replaces an older one.
 * `applied = 0` after `inserted = 1` is the rare path (stale, or no event time): the session
 * row, already locked, is then read by `lockSession`.
 */
function openPostgres(table: string, sessionsTable: string): string {
  return `WITH timeout AS (SELECT set_config('lock_timeout', ?, true)),
key AS (
  INSERT INTO ${table} (event_key, session_id, status, event_at_ms, received_at_ms)
  SELECT ?, ?, ?, ?::bigint, ?::bigint FROM timeout
  ON CONFLICT (event_key) DO NOTHING
  RETURNING session_id, status, event_at_ms, received_at_ms
),
applied AS (
  INSERT INTO ${sessionsTable} AS s (session_id, status, event_at_ms, applied_at_ms)
  SELECT session_id, status, event_at_ms, received_at_ms FROM key WHERE event_at_ms IS NOT NULL
  ON CONFLICT (session_id) DO UPDATE
  SET status = EXCLUDED.status, event_at_ms = EXCLUDED.event_at_ms, applied_at_ms = EXCLUDED.applied_at_ms
  WHERE s.event_at_ms < EXCLUDED.event_at_ms
  RETURNING 1
)
SELECT (SELECT count(*) FROM key)::int AS inserted, (SELECT count(*) FROM applied)::int AS applied`;
}

export function inboxStatements(dialect: InboxDialect, settings: InboxSettings): InboxStatements {
  const { table, sessionsTable } = settings;
  const pg = dialect === 'postgres';
  const ignore = (insert: string, key: string) =>
    pg ? `INSERT INTO ${insert} ON CONFLICT (${key}) DO NOTHING` : `INSERT IGNORE INTO ${insert}`;
  return {
    open: pg ? openPostgres(table, sessionsTable) : undefined,
    // InnoDB counts whole seconds; the session setting stays on the connection. (Postgres: in `open`.)
    lockTimeout: (ms) => ['SET SESSION innodb_lock_wait_timeout = ?', [Math.max(1, Math.ceil(ms / 1000))]],
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
    // Affects the row only when this event is newer: one statement for "read, compare, write".
    updateSession: `UPDATE ${sessionsTable} SET status = ?, event_at_ms = ?, applied_at_ms = ? WHERE session_id = ? AND event_at_ms < ?`,
    pruneKeys: pg
      ? `DELETE FROM ${table} WHERE event_key IN (SELECT event_key FROM ${table} WHERE received_at_ms < ? ORDER BY received_at_ms LIMIT ?)`
      : `DELETE FROM ${table} WHERE received_at_ms < ? ORDER BY received_at_ms LIMIT ?`,
    pruneSessions: pg
      ? `DELETE FROM ${sessionsTable} WHERE session_id IN (SELECT session_id FROM ${sessionsTable} WHERE applied_at_ms < ? ORDER BY applied_at_ms LIMIT ?)`
      : `DELETE FROM ${sessionsTable} WHERE applied_at_ms < ? ORDER BY applied_at_ms LIMIT ?`,
  };
}
