import { closeSync, fsync, fsyncSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

/** One fsync of the write-ahead log for all the commits made before it started. */
export interface WalSync {
  (): Promise<void>;
  close(): void;
}

/**
 * The power-loss mode's durability, off the event loop. SQLite runs with `synchronous=NORMAL`
 * (the WAL is synced at each checkpoint, the database after it) and this adds what `FULL` adds,
 * a sync of the WAL after a commit, but asynchronously on libuv's thread pool and once per group
 * commit: the loop keeps sending while the disk syncs, and the commits made while one sync runs
 * share the next.
 */
export function walSync(databasePath: string): WalSync {
  let fd: number | undefined;
  let current: Promise<void> | undefined;
  let queued: Promise<void> | undefined;

  const open = (): number => {
    if (fd !== undefined) return fd;
    fd = openSync(`${databasePath}-wal`, 'r+');
    // Once: the WAL's directory entry must survive a power loss too.
    const directory = openSync(dirname(databasePath), 'r');
    try {
      fsyncSync(directory);
    } finally {
      closeSync(directory);
    }
    return fd;
  };
  const start = (): Promise<void> => {
    const running = new Promise<void>((resolve, reject) => {
      fsync(open(), (error) => (error ? reject(error) : resolve()));
    }).finally(() => {
      if (current === running) current = undefined;
    });
    current = running;
    return running;
  };
  const sync = (() => {
    if (current === undefined) return start();
    // The sync in progress may have begun before this commit: one more after it covers it.
    queued ??= current
      .catch(() => undefined)
      .then(() => {
        queued = undefined;
        return start();
      });
    return queued;
  }) as WalSync;
  sync.close = () => {
    if (fd !== undefined) closeSync(fd);
    fd = undefined;
  };
  return sync;
}
