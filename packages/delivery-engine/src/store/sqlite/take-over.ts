import { hostname } from 'node:os';
import { DeliveryEngineError } from '../../delivery-engine-error.js';
import { type Checkpointer, startCheckpointer } from './checkpointer.js';
import { type FileLock, fileLock } from './file-lock.js';
import type { SqliteFile } from './open-sqlite.js';

type Row = Record<string, unknown>;

/** A delivery the previous owner had in flight, still without a result when this one took over. */
export interface InheritedAttempt {
  readonly id: string;
  readonly origin: string;
  readonly attempts: number;
}

/** The owner's lock on its file, its generation, and what runs while it holds them. */
export interface Ownership {
  readonly lock: FileLock;
  /**
   * Throws `store_fenced` unless this process is still the file's owner: its generation is the
   * one in the owner row and its lock file is the one at the path. Runs inside every group commit,
   * so a replaced owner's commit rolls back whole and nothing it writes lands as owner.
   */
  checkFence(): void;
  /** Stops the checkpointer and gives the lock back. */
  release(): Promise<void>;
}

/**
 * What taking a file over does once the lock is held, in one transaction: the owner generation is
 * bumped (fencing off any previous owner that is still alive), and the predecessor's attempts in
 * flight at its last commit that still have no result count one unrecorded send each and are
 * handed to `inherit` (held for one lease before they are sent again). The owner row names this
 * process for the next one refused; checkpoints move to a thread of their own.
 */
export function ownership(file: SqliteFile, inherit: (attempts: InheritedAttempt[]) => void): Ownership {
  const { db, t } = file;
  const readOwner = db.prepare(`SELECT in_flight, epoch FROM ${t.owner} WHERE id = 1`);
  const readEpoch = db.prepare(`SELECT epoch FROM ${t.owner} WHERE id = 1`).pluck();
  let epoch: number | undefined;
  const recover = db.transaction(() => {
    const previous = readOwner.get() as Row | undefined;
    const lost = db.prepare(
      `UPDATE ${t.deliveries} SET lost_leases = lost_leases + 1
        WHERE id = ? AND attempts = ? AND state = 'pending' RETURNING origin`,
    );
    const inherited: InheritedAttempt[] = [];
    for (const [id, attempts] of JSON.parse(String(previous?.in_flight ?? '[]')) as [string, number][]) {
      const row = lost.get(id, attempts) as Row | undefined;
      if (row !== undefined) inherited.push({ id, origin: String(row.origin), attempts });
    }
    const next = Number(previous?.epoch ?? 0) + 1;
    db.prepare(
      `INSERT INTO ${t.owner} (id, pid, host, since, in_flight, epoch) VALUES (1, ?, ?, ?, '[]', ?)
       ON CONFLICT (id) DO UPDATE SET pid = excluded.pid, host = excluded.host, since = excluded.since,
                                      in_flight = excluded.in_flight, epoch = excluded.epoch`,
    ).run(process.pid, hostname(), Date.now(), next);
    epoch = next;
    return inherited;
  });
  let checkpointer: Checkpointer | undefined;
  const lock = fileLock({
    file,
    onAcquired: () => {
      inherit(recover.immediate());
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
    checkFence() {
      const current = Number(readEpoch.get());
      if (current !== epoch) {
        throw fenced(`another engine took the file over (owner generation ${current}, this engine's ${epoch})`);
      }
      // A lock file deleted or replaced under this owner: lock the one now at the path, unless
      // another engine got there first (its takeover then waits for this commit and fences us).
      if (!lock.intact() && !lock.relock()) {
        throw fenced(
          `its lock file ${file.path}-lock or its owner record ${file.path}-owner was replaced, and another engine holds the new ones`,
        );
      }
    },
    async release() {
      await checkpointer?.stop();
      checkpointer = undefined;
      lock.release();
    },
  };
}

function fenced(why: string): DeliveryEngineError {
  return new DeliveryEngineError(
    'store_fenced',
    `sqliteDeliveryStore: this engine no longer owns its file: ${why}. It records the results of the attempts it had in flight and claims nothing more; stop this process (and find what touched the lock file), the other engine delivers the rest.`,
  );
}
