import { DeliveryEngineError } from '../delivery-engine-error.js';
import { fileLock, type SqliteStoreMode } from './sqlite/file-lock.js';
import { openSqlite } from './sqlite/open-sqlite.js';
import { ownerSqliteStore } from './sqlite/owner-store.js';
import { sharedSqliteStore } from './sqlite/shared-store.js';
import { walSync } from './sqlite/wal-sync.js';
import type { DeliveryStore } from './store.js';

export type { SqliteStoreMode } from './sqlite/file-lock.js';

/**
 * What a resolved `enqueue` and a recorded attempt survive. `process-crash`: a crash of the
 * process (`kill -9`, an out-of-memory kill); an OS crash or power loss can take the last
 * commits. `power-loss`: both, at the cost of one fsync per group commit.
 */
export type SqliteDurability = 'process-crash' | 'power-loss';

/** Options of {@link sqliteDeliveryStore}. */
export interface SqliteDeliveryStoreOptions {
  /** Database file; created if missing. `:memory:` works for a single engine in one process. */
  readonly path: string;
  /** Prefix of every table name (letters, digits, `_`), to share one file with other data. */
  readonly tablePrefix?: string;
  /** How long a writer waits for another connection's write lock before failing (default 5000 ms). */
  readonly busyTimeoutMs?: number;
  /**
   * `owner` (default): one process writes the file, and a lock refuses a second; claims are kept
   * in memory, so an attempt costs one write, its result. `shared`: several processes on one host
   * share the file, and every claim is a durable lease (about twice the writes). Any number of
   * handles may read a file in either mode.
   */
  readonly mode?: SqliteStoreMode;
  /** Default `process-crash`; `power-loss` adds one fsync per group commit. */
  readonly durability?: SqliteDurability;
}

const MODES: readonly SqliteStoreMode[] = ['owner', 'shared'];
const DURABILITIES: readonly SqliteDurability[] = ['process-crash', 'power-loss'];

function invalid(message: string): DeliveryEngineError {
  return new DeliveryEngineError('invalid_option', `sqliteDeliveryStore: ${message}`);
}

/**
 * The embedded store: one SQLite file in WAL mode. By default one process owns it (see
 * {@link SqliteDeliveryStoreOptions.mode}): a second engine on the same file is refused with an
 * error that says what to do, and an owner that died is replaced at once (the operating system
 * drops its lock). Deliveries without a recorded result are due again under the next owner, so
 * an attempt in flight at a crash is sent again: at least once, never lost.
 *
 * @example
 * ```ts
 * const engine = createDeliveryEngine({ store: sqliteDeliveryStore({ path: './webhooks.db' }) });
 * // Survive a power loss too, at one fsync per group commit:
 * sqliteDeliveryStore({ path: './webhooks.db', durability: 'power-loss' });
 * ```
 */
export function sqliteDeliveryStore(options: SqliteDeliveryStoreOptions): DeliveryStore<never> {
  if (typeof options?.path !== 'string' || options.path === '') throw invalid('`path` must be a non-empty string');
  const mode = options.mode ?? 'owner';
  if (!MODES.includes(mode)) throw invalid("`mode` must be 'owner' or 'shared'");
  const durability = options.durability ?? 'process-crash';
  if (!DURABILITIES.includes(durability)) throw invalid("`durability` must be 'process-crash' or 'power-loss'");
  if (durability === 'power-loss' && options.path === ':memory:') {
    throw invalid("a ':memory:' database survives nothing: use a file for durability 'power-loss'");
  }
  const file = openSqlite(options.path, options.tablePrefix ?? '', options.busyTimeoutMs ?? 5000);
  if (mode === 'owner') return ownerSqliteStore(file, durability === 'power-loss' ? walSync(file.path) : undefined);
  // Several processes: a group commit cannot span them, so each commit syncs on its own.
  if (durability === 'power-loss') file.db.pragma('synchronous = FULL');
  return sharedSqliteStore(file, fileLock({ file, mode: 'shared' }));
}
