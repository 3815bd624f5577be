import { randomBytes } from 'node:crypto';
import { linkSync, realpathSync, rmSync, type Stats, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { DeliveryEngineError } from '../../delivery-engine-error.js';
import type { SqliteFile } from './open-sqlite.js';
import {
  describeRecord,
  liveOwnerElsewhere,
  ownerRecordPath,
  readOwnerRecord,
  removeOwnerRecord,
  writeOwnerRecord,
} from './owner-record.js';
import { registerOwner, unregisterOwner } from './owner-registry.js';

/** A lock on a delivery database file, held from the first write until `release()`. */
export interface FileLock {
  /** Takes the lock if this handle does not hold it yet. Throws `store_locked` when another handle does. */
  acquire(): void;
  readonly held: boolean;
  /**
   * Whether the lock file and the owner record at their paths are still the ones this handle
   * made. A lock file deleted or replaced under a live owner lets a second engine lock a new file
   * beside it; the owner notices here, inside its next commit.
   */
  intact(): boolean;
  /**
   * Locks the file now at the lock path in place of the one this handle held (deleted or
   * replaced) and writes the owner record again; `false` when another engine holds them already
   * (then this handle holds nothing).
   */
  relock(): boolean;
  release(): void;
}

export interface FileLockOptions {
  readonly file: SqliteFile;
  /** Runs right after the lock is taken (the owner's recovery); if it throws, the lock is given back. */
  readonly onAcquired?: () => void;
}

const isBusy = (error: unknown): boolean => {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
};

const sameFile = (a: Stats | undefined, b: Stats | undefined): boolean =>
  a !== undefined && b !== undefined && a.ino === b.ino && a.dev === b.dev;

/**
 * The owner's lock is an open `BEGIN EXCLUSIVE` on a small side file (`<path>-lock`). The
 * operating system drops it when the process exits, however it exits, so a crashed owner's
 * successor takes over at once. It is a POSIX record lock, and those are fragile: any descriptor
 * of the file that the process closes (a `readFileSync`, a copy of the data folder) drops it, and
 * deleting the file takes it along. So the lock only keeps honest engines apart; the fence is the
 * owner generation in the database (see `ownership`), and {@link FileLock.intact} notices a lock
 * file that is no longer the one locked. Within one process, every copy of this package shares a
 * registry of owned files (`owner-registry.ts`).
 */
export function fileLock(options: FileLockOptions): FileLock {
  const { path } = options.file;
  if (path === ':memory:') return memoryLock(options);
  // One file reached through a symbolic link or a relative path must find the same lock.
  const realPath = realpathSync(path);
  const lockPath = `${realPath}-lock`;
  let connection: Database.Database | undefined;
  let lockedFile: Stats | undefined;
  let recordFile: Stats | undefined;
  /** When this handle took the lock: names its owner record among a successor's. */
  let since = 0;
  /** This handle holds the process-wide registration of the file (from acquire to release). */
  let registered = false;

  const refused = (inThisProcess: boolean): DeliveryEngineError => {
    const record = readOwnerRecord(realPath);
    return storeLockedError(
      path,
      record === undefined ? describeOwner(options.file) : describeRecord(record),
      inThisProcess,
    );
  };

  /** Opens the lock file (creating it) and locks it: the connection, or busy, or an error. */
  const lockFile = (): Database.Database | 'busy' => {
    let opened: Database.Database | undefined;
    try {
      createLockFile(lockPath);
      opened = new Database(lockPath, { timeout: 0 });
      opened.exec('BEGIN EXCLUSIVE');
      lockedFile = statSync(lockPath);
      since = Date.now();
      recordFile = writeOwnerRecord(realPath, since);
      return opened;
    } catch (error) {
      opened?.close();
      if (isBusy(error)) return 'busy';
      throw new DeliveryEngineError('store_error', `sqliteDeliveryStore: cannot lock ${lockPath}`, { cause: error });
    }
  };

  const lock: FileLock = {
    get held() {
      return connection !== undefined;
    },
    acquire() {
      if (connection !== undefined) return;
      if (!registered && !registerOwner(realPath)) throw refused(true);
      registered = true;
      let opened: Database.Database | 'busy';
      try {
        // A live owner whose own process dropped its POSIX lock is still the owner.
        opened = liveOwnerElsewhere(realPath) === undefined ? lockFile() : 'busy';
      } catch (error) {
        lock.release();
        throw error;
      }
      if (opened === 'busy') {
        lock.release();
        throw refused(false);
      }
      connection = opened;
      try {
        options.onAcquired?.();
      } catch (error) {
        lock.release();
        throw error;
      }
    },
    intact() {
      return (
        connection !== undefined &&
        sameFile(lockedFile, statSync(lockPath, { throwIfNoEntry: false })) &&
        sameFile(recordFile, statSync(ownerRecordPath(realPath), { throwIfNoEntry: false }))
      );
    },
    relock() {
      if (connection?.open) connection.close();
      connection = undefined;
      const opened = liveOwnerElsewhere(realPath) === undefined ? lockFile() : 'busy';
      if (opened === 'busy') return false;
      connection = opened;
      return true;
    },
    release() {
      const held = connection;
      connection = undefined;
      if (registered) unregisterOwner(realPath);
      registered = false;
      if (held?.open) {
        removeOwnerRecord(realPath, since);
        held.close();
      }
    },
  };
  return lock;
}

/** The refusal of a second engine, naming the owner ("process 4242 on host-a, since …") when known. */
export function storeLockedError(path: string, owner: string | undefined, inThisProcess: boolean): DeliveryEngineError {
  const here = inThisProcess || owner?.startsWith(`process ${process.pid} `) === true;
  const who = `${path} is owned by another delivery engine${owner === undefined ? '' : ` (${owner})`}`;
  return new DeliveryEngineError(
    'store_locked',
    `sqliteDeliveryStore: ${who}. One process owns an embedded SQLite queue: stop the other engine (its lock ends when its process exits, even after a crash) or close its store${here ? ' (it is in this process)' : ''}, or give this engine its own file. Several processes belong on Postgres (postgresDeliveryStore).`,
  );
}

/** A `:memory:` database belongs to its one connection: nothing to lock, but the takeover still runs once. */
function memoryLock(options: FileLockOptions): FileLock {
  let held = false;
  return {
    get held() {
      return held;
    },
    acquire() {
      if (held) return;
      held = true;
      options.onAcquired?.();
    },
    intact: () => held,
    relock: () => held,
    release() {
      held = false;
    },
  };
}

/**
 * Creates the lock file complete, with its table, under a temporary name and links it into
 * place, so nobody ever writes to the lock file itself. Creating the table in place held a
 * write lock on it for the length of a commit, and a process starting at that moment was
 * refused as if an owner held the file.
 */
function createLockFile(lockPath: string): void {
  if (statSync(lockPath, { throwIfNoEntry: false }) !== undefined) return;
  const draft = `${lockPath}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    const db = new Database(draft);
    db.exec('CREATE TABLE engine_lock (held INTEGER)');
    db.close();
    // A link, not a rename: when another process linked its file first, that one stays.
    linkSync(draft, lockPath);
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
  } finally {
    rmSync(draft, { force: true });
  }
}

/** Who owns the file, as the owner recorded it ("process 4242 on host-a, since …"), if known. */
function describeOwner({ db, t }: SqliteFile): string | undefined {
  try {
    const row = db.prepare(`SELECT pid, host, since FROM ${t.owner} WHERE id = 1`).get() as
      | { pid: number; host: string; since: number }
      | undefined;
    if (row === undefined) return undefined;
    return `process ${row.pid} on ${row.host}, since ${new Date(row.since).toISOString()}`;
  } catch {
    return undefined;
  }
}
