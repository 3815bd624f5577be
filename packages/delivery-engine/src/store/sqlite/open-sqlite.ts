import Database from 'better-sqlite3';
import { DeliveryEngineError } from '../../delivery-engine-error.js';
import { migrationsTable, pendingMigrations, type TableNames, tableNames } from '../schema.js';

/** An open, migrated SQLite delivery database. */
export interface SqliteFile {
  readonly db: Database.Database;
  readonly t: TableNames;
  readonly path: string;
  /** Runs the pending migrations again (a no-op once applied). */
  migrate(): void;
}

type Row = Record<string, unknown>;

/** Applies the pending numbered migrations in one `BEGIN IMMEDIATE` (processes sharing the file take turns). */
function migrator(db: Database.Database, t: TableNames): () => void {
  const apply = db.transaction(() => {
    db.exec(migrationsTable(t));
    const rows = db.prepare(`SELECT version FROM ${t.migrations}`).all() as Row[];
    for (const migration of pendingMigrations(rows.map((row) => Number(row.version)))) {
      for (const statement of migration.sqlite(t)) db.exec(statement);
      db.prepare(`INSERT INTO ${t.migrations} (version, description, applied_at) VALUES (?, ?, ?)`).run(
        migration.version,
        migration.description,
        Date.now(),
      );
    }
  });
  return () => apply.immediate();
}

/**
 * Switches the file to WAL. On a new file the switch takes a lock for which SQLite does not call
 * the busy handler, so a process opening the file while another switches it got SQLITE_BUSY at
 * once (shared-mode workers starting together); it waits here instead, as long as the busy timeout.
 */
function enableWal(db: Database.Database, waitMs: number): void {
  const until = Date.now() + waitMs;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code !== 'SQLITE_BUSY' || Date.now() >= until) throw error;
      // A synchronous pause, like SQLite's own busy handler: the open is synchronous.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
}

/**
 * Opens the file in WAL mode with `synchronous=NORMAL` (a commit survives a process crash; the
 * power-loss mode adds its own fsync per group commit) and applies the migrations, which the
 * prepared statements of both store modes need.
 */
export function openSqlite(path: string, tablePrefix: string, busyTimeoutMs: number): SqliteFile {
  const t = tableNames(tablePrefix);
  let db: Database.Database;
  try {
    db = new Database(path);
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    enableWal(db, busyTimeoutMs);
    db.pragma('synchronous = NORMAL');
  } catch (error) {
    throw new DeliveryEngineError('store_error', `sqliteDeliveryStore: cannot open ${path}`, { cause: error });
  }
  const migrate = migrator(db, t);
  try {
    migrate();
  } catch (error) {
    db.close();
    if (error instanceof DeliveryEngineError) throw error;
    throw new DeliveryEngineError('store_error', `sqliteDeliveryStore: cannot migrate ${path}`, { cause: error });
  }
  return { db, t, path, migrate };
}
