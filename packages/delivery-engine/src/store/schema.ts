import { DeliveryEngineError } from '../delivery-engine-error.js';
import { refuseOldClaims } from './postgres/refuse-old-claims.js';

/** Table names of one store, after the caller's prefix. */
export interface TableNames {
  readonly deliveries: string;
  readonly attempts: string;
  readonly redeliveries: string;
  /** Which numbered migrations this database has applied. */
  readonly migrations: string;
  /** SQLite owner mode: who owns the file, and which deliveries it had in flight at its last commit. */
  readonly owner: string;
  /** The ids of the keys that sealed the stored secrets, each with a check value only its key opens. */
  readonly sealingKeys: string;
  readonly prefix: string;
  /** `schema.` when a Postgres schema was given, else empty: what names an index to drop. */
  readonly qualifier: string;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,40}$/;

/**
 * Validates a table prefix and an optional Postgres schema (both are spliced into SQL, so only
 * identifier characters pass) and returns the table names.
 */
export function tableNames(prefix: string, schema?: string): TableNames {
  if (prefix !== '' && !IDENTIFIER.test(prefix)) {
    throw new DeliveryEngineError(
      'invalid_option',
      'tablePrefix: use letters, digits and `_` only, starting with a letter or `_`, at most 41 characters',
    );
  }
  if (schema !== undefined && !IDENTIFIER.test(schema)) {
    throw new DeliveryEngineError(
      'invalid_option',
      'schema: use letters, digits and `_` only, starting with a letter or `_`, at most 41 characters',
    );
  }
  const q = schema === undefined ? '' : `${schema}.`;
  return {
    prefix,
    qualifier: q,
    deliveries: `${q}${prefix}deliveries`,
    attempts: `${q}${prefix}delivery_attempts`,
    redeliveries: `${q}${prefix}delivery_redeliveries`,
    migrations: `${q}${prefix}delivery_schema_migrations`,
    owner: `${q}${prefix}delivery_owner`,
    sealingKeys: `${q}${prefix}delivery_sealing_keys`,
  };
}

/**
 * Both stores share one column layout. `next_attempt_at` doubles as the lease end while an
 * attempt is in flight (`leased = 1`): a worker that dies leaves a delivery that simply becomes
 * due again when its lease ends, with no sweeper. `due_at` keeps the time before the claim so a
 * release can give it back unchanged.
 */
function deliveriesTable(t: TableNames, time: string, bool: string): string {
  return `CREATE TABLE IF NOT EXISTS ${t.deliveries} (
    id TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    origin TEXT NOT NULL,
    auth_key TEXT,
    signing_secret TEXT,
    body TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'pending',
    attempts INTEGER NOT NULL DEFAULT 0,
    round_attempts INTEGER NOT NULL DEFAULT 0,
    round INTEGER NOT NULL DEFAULT 1,
    created_at ${time} NOT NULL,
    next_attempt_at ${time},
    due_at ${time},
    finished_at ${time},
    leased ${bool} NOT NULL DEFAULT 0,
    lost_leases INTEGER NOT NULL DEFAULT 0,
    lease_token BIGINT NOT NULL DEFAULT 0,
    last_outcome TEXT,
    last_status INTEGER
  )`;
}

function otherTables(t: TableNames, time: string): string[] {
  return [
    `CREATE INDEX IF NOT EXISTS ${t.prefix}deliveries_due ON ${t.deliveries} (next_attempt_at) WHERE state = 'pending'`,
    `CREATE INDEX IF NOT EXISTS ${t.prefix}deliveries_created ON ${t.deliveries} (created_at)`,
    `CREATE TABLE IF NOT EXISTS ${t.attempts} (
      delivery_id TEXT NOT NULL REFERENCES ${t.deliveries} (id) ON DELETE CASCADE,
      attempt INTEGER NOT NULL,
      round INTEGER NOT NULL,
      started_at ${time} NOT NULL,
      request_headers TEXT NOT NULL,
      status INTEGER,
      outcome TEXT NOT NULL,
      dialed_address TEXT,
      latency_ms INTEGER NOT NULL,
      response_snippet TEXT,
      error_message TEXT,
      PRIMARY KEY (delivery_id, attempt)
    )`,
    `CREATE TABLE IF NOT EXISTS ${t.redeliveries} (
      delivery_id TEXT NOT NULL REFERENCES ${t.deliveries} (id) ON DELETE CASCADE,
      round INTEGER NOT NULL,
      requested_at ${time} NOT NULL,
      PRIMARY KEY (delivery_id, round)
    )`,
  ];
}

/** One numbered schema change, written once per dialect. Append only; never edit a shipped one. */
export interface Migration {
  readonly version: number;
  readonly description: string;
  sqlite(t: TableNames): string[];
  postgres(t: TableNames): string[];
}

/**
 * Every schema change in order. Version 1 is written with `IF NOT EXISTS`, so databases made
 * before the migrations table existed adopt it without change.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'deliveries, attempt log and redeliveries',
    sqlite: (t) => [deliveriesTable(t, 'INTEGER', 'INTEGER'), ...otherTables(t, 'INTEGER')],
    postgres: (t) => [
      deliveriesTable(t, 'BIGINT', 'INTEGER'),
      ...otherTables(t, 'BIGINT'),
      // A queue table churns: fresh statistics keep the claim on its ordered index scan, and
      // frequent vacuum keeps dead row versions from piling up under the due index.
      `ALTER TABLE ${t.deliveries} SET (autovacuum_analyze_scale_factor = 0.02, autovacuum_vacuum_scale_factor = 0.05)`,
    ],
  },
  {
    version: 2,
    description: 'session id, company id and enqueuing trace context of each delivery',
    sqlite: (t) => traceColumns(t),
    postgres: (t) => traceColumns(t),
  },
  {
    version: 3,
    description: 'SQLite: the owning process and its attempts in flight; Postgres: leases outside the due index',
    sqlite: (t) => [
      `CREATE TABLE IF NOT EXISTS ${t.owner} (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        pid INTEGER NOT NULL,
        host TEXT NOT NULL,
        since INTEGER NOT NULL,
        in_flight TEXT NOT NULL DEFAULT '[]'
      )`,
    ],
    postgres: (t) => [
      // A claim writes only this unindexed column (and the lease counters), so Postgres can
      // update the row in place (a HOT update) instead of adding an entry to every index; the
      // room left in each page by the fill factor is what makes that possible.
      `ALTER TABLE ${t.deliveries} ADD COLUMN IF NOT EXISTS lease_until BIGINT`,
      `ALTER TABLE ${t.deliveries} SET (fillfactor = 50)`,
    ],
  },
  {
    version: 4,
    description: 'sends without a recorded result before each attempt; SQLite: the owner generation (fence)',
    sqlite: (t) => [
      unrecordedSendsColumn(t),
      // Bumped by every takeover and checked inside every group commit: an owner whose commit
      // finds a newer generation has been replaced and records nothing more as owner.
      `ALTER TABLE ${t.owner} ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0`,
    ],
    postgres: (t) => [unrecordedSendsColumn(t), ...refuseOldClaims(t)],
  },
  {
    version: 5,
    description: 'pending deliveries indexed by origin, then due time: claims go round the origins',
    sqlite: (t) => originDueIndex(t),
    postgres: (t) => originDueIndex(t),
  },
  {
    version: 6,
    description: 'Auth Keys and signing secrets stored sealed, and the ids of the keys that sealed them',
    sqlite: (t) => sealedSecrets(t, 'INTEGER'),
    postgres: (t) => sealedSecrets(t, 'BIGINT'),
  },
];

/**
 * Claims and idle passes read one origin at a time, so an origin's backlog is walked by no one
 * else's claim; the index by due time alone, which every claim walked past saturated origins'
 * rows, goes (one index per write, as before).
 */
function originDueIndex(t: TableNames): string[] {
  return [
    `CREATE INDEX IF NOT EXISTS ${t.prefix}deliveries_origin_due ON ${t.deliveries} (origin, next_attempt_at) WHERE state = 'pending'`,
    `DROP INDEX IF EXISTS ${t.qualifier}${t.prefix}deliveries_due`,
  ];
}

/**
 * The secret columns are renamed, not kept: a worker of an earlier release reading or writing
 * `auth_key` would send a sealed value as the Bearer key, or store a key in clear beside the new
 * workers; now its statements fail before they touch a row (stop those workers). The values are
 * sealed by the first engine that starts with a key (stored-secrets.ts), which removes the row
 * `key_id = ''` the migration adds to say that rows written before may still hold clear values.
 */
function sealedSecrets(t: TableNames, time: string): string[] {
  return [
    `ALTER TABLE ${t.deliveries} RENAME COLUMN auth_key TO sealed_auth_key`,
    `ALTER TABLE ${t.deliveries} RENAME COLUMN signing_secret TO sealed_signing_secret`,
    `CREATE TABLE IF NOT EXISTS ${t.sealingKeys} (
      key_id TEXT PRIMARY KEY,
      check_value TEXT NOT NULL,
      added_at ${time} NOT NULL
    )`,
    `INSERT INTO ${t.sealingKeys} (key_id, check_value, added_at) VALUES ('', '', 0)`,
  ];
}

/**
 * How many earlier sends of the delivery ended without a recorded result (a crash, a fenced-off
 * owner, an expired lease) before this attempt: the attempt log's answer to "why twice?".
 */
function unrecordedSendsColumn(t: TableNames): string {
  return `ALTER TABLE ${t.attempts} ADD COLUMN unrecorded_sends INTEGER NOT NULL DEFAULT 0`;
}

/** Nullable, so rows written by version 1 stay valid: their attempts simply start new traces. */
function traceColumns(t: TableNames): string[] {
  return ['session_id', 'company_id', 'trace_parent'].map(
    (column) => `ALTER TABLE ${t.deliveries} ADD COLUMN ${column} TEXT`,
  );
}

/** The newest schema version this code knows. */
export const SCHEMA_VERSION = MIGRATIONS.reduce((max, m) => Math.max(max, m.version), 0);

/** The table that records applied migrations (same layout in both dialects). */
export function migrationsTable(t: TableNames): string {
  return `CREATE TABLE IF NOT EXISTS ${t.migrations} (
    version INTEGER PRIMARY KEY,
    description TEXT NOT NULL,
    applied_at BIGINT NOT NULL
  )`;
}

/**
 * The migrations a database at `applied` versions still needs, in order. Refuses a database
 * already migrated past this code: an old worker left running during a rolling deploy must
 * not write rows in a layout it does not know.
 */
export function pendingMigrations(applied: readonly number[]): Migration[] {
  const newest = Math.max(0, ...applied);
  if (newest > SCHEMA_VERSION) {
    throw new DeliveryEngineError(
      'store_error',
      `the delivery tables are at schema version ${newest}, newer than this engine knows (${SCHEMA_VERSION}); upgrade @kyc/delivery-engine on this worker`,
    );
  }
  const done = new Set(applied);
  return MIGRATIONS.filter((m) => !done.has(m.version));
}
