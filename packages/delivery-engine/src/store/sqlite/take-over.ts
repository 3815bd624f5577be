import { hostname } from 'node:os';
import { type Checkpointer, startCheckpointer } from './checkpointer.js';
import { type FileLock, fileLock } from './file-lock.js';
import type { SqliteFile } from './open-sqlite.js';

type Row = Record<string, unknown>;

/** The owner's lock on its file, and what runs while it holds it. */
export interface Ownership {
  readonly lock: FileLock;
  /** Stops the checkpointer and gives the lock back. */
  release(): Promise<void>;
}

/**
 * The owner's lock, and what taking a file over does once the lock is held: the predecessor's
 * attempts in flight at its last commit that still have no result were lost with it (a lost
 * lease each); a lease of the shared mode left behind ends now (no shared process can hold the
 * file); the owner row names this process for the next one refused; and checkpoints move to a
 * thread of their own, never inside a commit.
 */
export function ownership(file: SqliteFile): Ownership {
  const { db, t } = file;
  const readInFlight = db.prepare(`SELECT in_flight FROM ${t.owner} WHERE id = 1`);
  const recover = db.transaction(() => {
    const previous = readInFlight.get() as Row | undefined;
    const lost = db.prepare(
      `UPDATE ${t.deliveries} SET lost_leases = lost_leases + 1 WHERE id = ? AND attempts = ? AND state = 'pending'`,
    );
    for (const [id, attempts] of JSON.parse(String(previous?.in_flight ?? '[]')) as [string, number][]) {
      lost.run(id, attempts);
    }
    db.prepare(
      `UPDATE ${t.deliveries} SET leased = 0, lost_leases = lost_leases + 1, next_attempt_at = coalesce(due_at, next_attempt_at)
        WHERE state = 'pending' AND leased = 1`,
    ).run();
    db.prepare(
      `INSERT INTO ${t.owner} (id, pid, host, since, in_flight) VALUES (1, ?, ?, ?, '[]')
       ON CONFLICT (id) DO UPDATE SET pid = excluded.pid, host = excluded.host, since = excluded.since, in_flight = '[]'`,
    ).run(process.pid, hostname(), Date.now());
  });
  let checkpointer: Checkpointer | undefined;
  const lock = fileLock({
    file,
    mode: 'owner',
    onAcquired: () => {
      recover.immediate();
      if (file.path === ':memory:') return;
      db.pragma('wal_autocheckpoint = 0');
      checkpointer = startCheckpointer(file.path, () => {
        // Without its checkpointer the WAL would grow without end: the owner checkpoints again.
        db.pragma('wal_autocheckpoint = 1000');
      });
    },
  });
  return {
    lock,
    async release() {
      await checkpointer?.stop();
      checkpointer = undefined;
      lock.release();
    },
  };
}
