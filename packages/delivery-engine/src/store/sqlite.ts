import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { DeliveryEngineError } from '../delivery-engine-error.js';
import { checkSealingKeys, type SealingKey } from '../sealing/sealing-key.js';
import { deferredStore } from './sqlite/deferred-store.js';
import { storeLockedError } from './sqlite/file-lock.js';
import { openSqlite } from './sqlite/open-sqlite.js';
import { describeRecord, liveOwnerElsewhere } from './sqlite/owner-record.js';
import { ownedByAnotherCopy } from './sqlite/owner-registry.js';
import { ownerSqliteStore } from './sqlite/owner-store.js';
import { sqliteSealing } from './sqlite/sqlite-sealing.js';
import { walSync } from './sqlite/wal-sync.js';
import type { DeliveryStore } from './store.js';

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
  /** Default `process-crash`; `power-loss` adds one fsync per group commit. */
  readonly durability?: SqliteDurability;
  /**
   * Keys that seal the Auth Keys and signing secrets `enqueue` is given (AES-256-GCM; the first
   * seals, every one opens). Without them the store keeps its key in `sealingKeyFile`.
   */
  readonly sealingKeys?: readonly SealingKey[];
  /**
   * The key file used without `sealingKeys` (default: `<path>.key`), made at the first start
   * with one new key, mode 0600. Keep it out of the database's backups: a backup alone then
   * reveals no secret, and without the file the stored secrets cannot be opened.
   */
  readonly sealingKeyFile?: string;
}

const DURABILITIES: readonly SqliteDurability[] = ['process-crash', 'power-loss'];

const ANOTHER_COPY =
  'another copy of @kyc/delivery-engine loaded in this process, from a second node_modules tree (`npm ls @kyc/delivery-engine` lists them): use that copy, or install one version';

function invalid(message: string): DeliveryEngineError {
  return new DeliveryEngineError('invalid_option', `sqliteDeliveryStore: ${message}`);
}

/**
 * The embedded store: one SQLite file in WAL mode, owned by one process: a second engine on the
 * same file (in this process or another) is refused with an error that says what to do, and an
 * owner that died is replaced at once (the operating system drops its lock). Any number of
 * handles may read the file. Deliveries without a recorded result are due again under the next
 * owner (after one lease, in case the old owner is still finishing them), so an attempt in flight
 * at a crash is sent again, and the attempt log counts that send: at least once, never lost.
 * Several processes belong on Postgres. An Auth Key or signing secret given to `enqueue` is
 * stored sealed (AES-256-GCM) with `sealingKeys`, or with the key file `<path>.key` the store
 * makes at its first start (mode 0600): keep that file out of the database's backups.
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
  const mode = (options as { mode?: unknown }).mode;
  if (mode !== undefined && mode !== 'owner') {
    throw invalid(
      'one process owns a SQLite delivery file (`mode` is gone); run several workers on Postgres (postgresDeliveryStore from @kyc/delivery-engine/postgres)',
    );
  }
  const durability = options.durability ?? 'process-crash';
  if (!DURABILITIES.includes(durability)) throw invalid("`durability` must be 'process-crash' or 'power-loss'");
  if (durability === 'power-loss' && options.path === ':memory:') {
    throw invalid("a ':memory:' database survives nothing: use a file for durability 'power-loss'");
  }
  if (options.sealingKeys !== undefined) checkSealingKeys(options.sealingKeys, 'sqliteDeliveryStore: sealingKeys');
  if (
    options.sealingKeyFile !== undefined &&
    (typeof options.sealingKeyFile !== 'string' || options.sealingKeyFile === '')
  ) {
    throw invalid('`sealingKeyFile` must be a path');
  }
  // Resolved now, beside the database: a later process.chdir() must not move it.
  const keyFile = options.path === ':memory:' ? undefined : resolve(options.sealingKeyFile ?? `${options.path}.key`);
  const open = () => {
    const file = openSqlite(options.path, options.tablePrefix ?? '', options.busyTimeoutMs ?? 5000);
    // The WAL is opened by the path resolved now: a later process.chdir() must not move it.
    const sync = durability === 'power-loss' ? walSync(realpathSync(file.path)) : undefined;
    return ownerSqliteStore(file, sync, sqliteSealing(file, { keys: options.sealingKeys, keyFile }));
  };
  if (options.path === ':memory:' || !existsSync(options.path)) return open();
  const realPath = realpathSync(options.path);
  // Another copy of the package here, or a live owner process: refused before the file is opened.
  const refusal = () => {
    if (ownedByAnotherCopy(realPath)) return storeLockedError(options.path, ANOTHER_COPY, true);
    const owner = liveOwnerElsewhere(realPath);
    return owner === undefined ? undefined : storeLockedError(options.path, describeRecord(owner), false);
  };
  if (refusal() === undefined) return open();
  return deferredStore(open, refusal, { refuseReads: ownedByAnotherCopy(realPath) });
}
