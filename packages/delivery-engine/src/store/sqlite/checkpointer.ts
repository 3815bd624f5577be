import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the checkpointer copies the write-ahead log into the database file. */
export const CHECKPOINT_INTERVAL_MS = 250;

/**
 * A WAL longer than this many pages after a passive checkpoint is restarted: SQLite's own
 * auto-checkpoint threshold (about 4 MB of 4 KiB pages).
 */
export const RESTART_ABOVE_PAGES = 1000;

// The thread's whole program: its own connection, a PASSIVE checkpoint (it never blocks the
// owner's writes) on an interval, closed on a message. CommonJS and inline, so it loads the same
// way from the sources, the ESM build and the CommonJS build.
//
// A passive checkpoint alone does not bound the WAL under steady load: the log starts again from
// its beginning only when a checkpoint has copied every frame before the next write, and the
// owner commits every few milliseconds, so it never has (a 67 MB database grew a 1.1 GB WAL).
// Past the threshold a RESTART checkpoint copies the few frames left so that the next write
// starts the log again from its beginning. It waits at most 10 ms (its busy timeout): long enough
// to let a commit of the owner finish, short enough that a RESTART finding a reader on an old
// snapshot (a `VACUUM INTO` backup, a report) holds the write lock, and so the owner, no longer
// than that before it gives up with SQLITE_BUSY and tries again on the next tick. With the 5 s
// timeout it had, the owner's event loop froze for 5 s at a time (10.2 s and 5.1 s measured); with
// none, back-to-back commits kept it from ever restarting the log. The WAL grows meanwhile, as it
// must while a reader needs its frames.
const PROGRAM = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { timeout: 10 });
const checkpoint = () => {
  try {
    const [passive] = db.pragma('wal_checkpoint(PASSIVE)');
    if (passive !== undefined && passive.log > workerData.restartAbovePages) db.pragma('wal_checkpoint(RESTART)');
  } catch (error) {
    if (error && String(error.code).startsWith('SQLITE_BUSY')) return;
    parentPort.postMessage(String(error && error.message));
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', () => { clearInterval(timer); checkpoint(); db.close(); parentPort.close(); });
`;

/** A running checkpointer; `stop()` runs a last checkpoint and ends the thread. */
export interface Checkpointer {
  stop(): Promise<void>;
}

/**
 * Moves SQLite's checkpoints off the event loop. By default the committing connection copies
 * the WAL into the database every 1 000 pages, inside a commit, and with `synchronous=NORMAL`
 * syncs both files while it does: milliseconds during which the engine sends nothing. The owner
 * turns that off (`wal_autocheckpoint = 0`) and a thread with its own connection checkpoints
 * instead, passively, beside the owner's writes.
 */
export function startCheckpointer(path: string, onError: (message: string) => void): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(PROGRAM, {
    eval: true,
    workerData: { path, driver, intervalMs: CHECKPOINT_INTERVAL_MS, restartAbovePages: RESTART_ABOVE_PAGES },
  });
  // It must not keep a process alive that is otherwise done (a forgotten close()).
  worker.unref();
  worker.on('message', (message: unknown) => onError(String(message)));
  worker.on('error', (error) => onError(error.message));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    async stop() {
      // Held by its own thread now, the process waits for the last checkpoint.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
