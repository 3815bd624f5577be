import { randomBytes } from 'node:crypto';
import { linkSync, realpathSync, rmSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { DeliveryEngineError } from '../../delivery-engine-error.js';
import type { SqliteFile } from './open-sqlite.js';

/** `owner`: one process owns the file. `shared`: any number of processes with durable leases. */
export type SqliteStoreMode = 'owner' | 'shared';

/** A lock on a delivery database file, held from the first write until `release()`. */
export interface FileLock {
  /** Takes the lock if this handle does not hold it yet. Throws `store_locked` when another handle does. */
  acquire(): void;
  readonly held: boolean;
  release(): void;
}

export interface FileLockOptions {
  readonly file: SqliteFile;
  readonly mode: SqliteStoreMode;
  /** Runs right after the lock is taken (the owner's recovery); if it throws, the lock is given back. */
  readonly onAcquired?: () => void;
}

/** How long processes creating the same new lock file wait for each other. */
const INITIALIZE_WAIT_MS = 2000;

const isBusy = (error: unknown): boolean => {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
};

/**
 * The lock is an open transaction on a small side file (`<path>-lock`): `BEGIN EXCLUSIVE` for
 * the owner, a read transaction for each process of the shared mode. The operating system holds
 * these byte-range locks for the process and drops them when it exits, however it exits, so a
 * crashed owner's successor takes over at once and no stale lock file ever needs clearing.
 * SQLite applies the same rule between connections of one process.
 */
export function fileLock(options: FileLockOptions): FileLock {
  const { mode } = options;
  const { path } = options.file;
  if (path === ':memory:') return { acquire() {}, held: true, release() {} };
  // One file reached through a symbolic link or a relative path must find the same lock.
  const lockPath = `${realpathSync(path)}-lock`;
  let connection: Database.Database | undefined;

  const refused = (): DeliveryEngineError => {
    if (mode === 'owner' && sharedHolders(lockPath)) {
      return new DeliveryEngineError(
        'store_locked',
        `sqliteDeliveryStore: ${path} is used by processes opened with { mode: 'shared' }. Open this one with { mode: 'shared' } too, or stop them first: an owner needs the file to itself.`,
      );
    }
    const owner = describeOwner(options.file);
    const sameProcess = owner?.startsWith(`process ${process.pid} `) === true;
    const who = `${path} is owned by another delivery engine${owner === undefined ? '' : ` (${owner})`}`;
    const advice =
      mode === 'owner'
        ? 'One process owns an embedded SQLite queue: stop the other engine (its lock ends when its process exits, even after a crash) or close its store' +
          `${sameProcess ? ' (it is in this process)' : ''}, give this engine its own file, or open every process on this file with { mode: 'shared' } (each claim is then a durable write)`
        : "Processes that share one file must all use { mode: 'shared' }: stop the owner, or give this process its own file";
    return new DeliveryEngineError('store_locked', `sqliteDeliveryStore: ${who}. ${advice}.`);
  };

  const lock: FileLock = {
    get held() {
      return connection !== undefined;
    },
    acquire() {
      if (connection !== undefined) return;
      let opened: Database.Database | undefined;
      try {
        createLockFile(lockPath);
        opened = new Database(lockPath, { timeout: 0 });
        // Only a lock file left empty by an older engine (or a crash mid-creation) is still written here.
        if ((statSync(lockPath, { throwIfNoEntry: false })?.size ?? 0) === 0) {
          // A new lock file gets its one table; processes starting together wait for each
          // other here (briefly), not in the lock below, where busy means refused.
          opened.pragma(`busy_timeout = ${INITIALIZE_WAIT_MS}`);
          opened.exec('CREATE TABLE IF NOT EXISTS engine_lock (held INTEGER)');
          opened.pragma('busy_timeout = 0');
        }
        if (mode === 'owner') opened.exec('BEGIN EXCLUSIVE');
        else {
          opened.exec('BEGIN');
          // A read is what takes the shared lock; BEGIN alone takes none.
          opened.prepare('SELECT count(*) FROM engine_lock').get();
        }
      } catch (error) {
        opened?.close();
        if (isBusy(error)) throw refused();
        throw new DeliveryEngineError('store_error', `sqliteDeliveryStore: cannot lock ${lockPath}`, { cause: error });
      }
      connection = opened;
      try {
        options.onAcquired?.();
      } catch (error) {
        lock.release();
        throw error;
      }
    },
    release() {
      const held = connection;
      connection = undefined;
      if (held?.open) held.close();
    },
  };
  return lock;
}

/**
 * Creates the lock file complete, with its table, under a temporary name and links it into
 * place, so nobody ever writes to the lock file itself. Creating the table in place held a
 * write lock on it for the length of a commit, and a process starting at that moment was
 * refused as if an owner held the file (two shared workers starting together, once in CI).
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

/** Whether the processes holding the lock file are shared-mode readers (a read lock can still be had). */
function sharedHolders(lockPath: string): boolean {
  let probe: Database.Database | undefined;
  try {
    probe = new Database(lockPath, { timeout: 0 });
    probe.exec('BEGIN');
    probe.prepare('SELECT count(*) FROM engine_lock').get();
    return true;
  } catch {
    return false;
  } finally {
    probe?.close();
  }
}
