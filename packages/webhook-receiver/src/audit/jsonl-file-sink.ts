import { constants, write, writeSync } from 'node:fs';
import { type FileHandle, mkdir, open, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { WebhookError } from '../webhook-error.js';
import { APPEND_WITHIN, appendQueue, type QueuedSink } from './append-queue.js';
import { auditFileName, listAuditFiles } from './audit-files.js';
import { takeDirectoryLock } from './directory-lock.js';
import { chainBatch, textSha256 } from './hash-audit-entry.js';
import { nodeSha256 } from './node-sha256.js';
import { readLastLine } from './read-last-line.js';
import type { AuditEntry, AuditHead, AuditRecord, AuditSink } from './types.js';

/** Options of {@link jsonlAuditSink}. */
export interface JsonlAuditSinkOptions {
  /** The directory the log's files go in (created if missing). One process writes one directory. */
  readonly directory: string;
  /** File names are `<prefix>-<first seq, 12 digits>-<UTC day YYYYMMDD>.jsonl`. Default `webhook-audit`. */
  readonly prefix?: string;
  /** Start a new file past this size, in bytes. Default 64 MiB. */
  readonly maxFileBytes?: number;
  /** Start a new file when the UTC day changes. Default true. */
  readonly daily?: boolean;
  /**
   * `batch` (default): each batch is on disk before any request of it is answered (an `O_DSYNC`
   * write, or `fdatasync` where there is no O_DSYNC), so an acknowledged entry survives a power
   * loss. `none`: leave it to the OS (survives a crash of the process, not of the machine) —
   * faster, for logs that are copied elsewhere anyway; written with `writeSync` into the page cache.
   */
  readonly fsync?: 'batch' | 'none';
  /** Milliseconds since the epoch, for the day of a file; default `Date.now`. */
  readonly now?: () => number;
}

const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;
const hashText = textSha256(nodeSha256);
const PREFIX = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

function invalid(message: string): never {
  throw new WebhookError('invalid_option', `jsonlAuditSink: ${message}`);
}

/** Writes all of `bytes` at the end of the file (the callback API: cheaper per call than a FileHandle's). */
function writeAll(fd: number, bytes: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const from = (offset: number) =>
      write(fd, bytes, offset, bytes.length - offset, null, (error, written) => {
        if (error) reject(error);
        else if (offset + written < bytes.length) from(offset + written);
        else resolve();
      });
    from(0);
  });
}

/**
 * The same on the event loop, for `fsync: 'none'`: a write into the page cache takes a few
 * microseconds, less than the hand-over to the thread pool and back (~35 µs of CPU per batch
 * here). pino's file destination writes synchronously for the same reason.
 */
function writeAllNow(fd: number, bytes: Buffer): void {
  for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}

function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');
}

interface OpenFile {
  readonly handle: FileHandle;
  readonly day: string;
  /** Bytes of whole entries: a failed write is cut back to it. */
  size: number;
}

/**
 * An append-only JSON Lines audit log in a directory (Node): one entry per line, files rotated
 * by size and by UTC day, each new file continuing the chain of the one before. Appends that
 * arrive while a write is in flight go out together in the next write and share its `fdatasync`
 * (group commit). At start it takes over where the newest file ends, cutting off a line a crash
 * left half-written (that entry was never acknowledged). A lock file keeps a second process
 * from writing the same directory (give each replica its own directory, or use Postgres).
 *
 * @throws {@link index.WebhookError | WebhookError} `invalid_option` for a bad option; the first append rejects when
 * the directory cannot be written or another live process holds it.
 * @example
 * const sink = jsonlAuditSink({ directory: '/var/lib/kyc/audit' });
 * const receiver = createWebhookReceiver({ authKeys, onEvent, audit: auditTrail({ sink }) });
 */
export function jsonlAuditSink(options: JsonlAuditSinkOptions): AuditSink & { close(): Promise<void> } {
  if (typeof options?.directory !== 'string' || options.directory === '') invalid('directory must be a path.');
  const prefix = options.prefix ?? 'webhook-audit';
  if (!PREFIX.test(prefix)) invalid('prefix must be letters, digits, "_", "-" or "." (at most 64).');
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  if (!Number.isSafeInteger(maxFileBytes) || maxFileBytes < 1024) invalid('maxFileBytes must be an integer ≥ 1024.');
  const fsync = options.fsync ?? 'batch';
  if (fsync !== 'batch' && fsync !== 'none') invalid('fsync must be "batch" or "none".');
  const daily = options.daily ?? true;
  const now = options.now ?? Date.now;
  const { directory } = options;

  // With `fsync: 'batch'`, a file opened with O_DSYNC makes each write return once its data is
  // durable, as write + fdatasync would: one call to the thread pool per batch rather than two
  // (each hand-over to it cost ~50 µs of CPU here). Where there is no O_DSYNC, fdatasync follows.
  const syncedWrites = fsync === 'batch' && constants.O_DSYNC !== undefined;
  const appendFlags = syncedWrites
    ? constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_DSYNC
    : 'a';

  let started: Promise<void> | undefined;
  let releaseLock: (() => Promise<void>) | undefined;
  let head: AuditHead | undefined;
  let file: OpenFile | undefined;
  let closed = false;

  /** Finds the head in the newest file that has a whole entry, cutting off a torn last line. */
  const recover = async () => {
    const files = await listAuditFiles(directory, prefix);
    for (let index = files.length - 1; index >= 0; index--) {
      const path = join(directory, (files[index] as { name: string }).name);
      const handle = await open(path, 'r+');
      try {
        const { line, wholeBytes, size } = await readLastLine(handle);
        if (wholeBytes < size) await handle.truncate(wholeBytes);
        if (line !== undefined) {
          const entry = JSON.parse(line) as AuditEntry;
          head = { seq: entry.seq, hash: entry.hash };
          return;
        }
      } finally {
        await handle.close();
      }
      // A file with no whole entry (a crash right after it was created) holds nothing: drop it.
      await unlink(path);
    }
  };

  const start = () => {
    started ??= (async () => {
      await mkdir(directory, { recursive: true });
      releaseLock = await takeDirectoryLock(directory, prefix);
      await recover();
    })();
    return started;
  };

  const syncDirectory = async () => {
    // A new file's name must be durable too, or a power loss could lose the whole file.
    const handle = await open(directory, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  };

  const fileFor = async (firstSeq: number, bytes: number): Promise<OpenFile> => {
    const day = utcDay(now());
    if (file !== undefined && file.size > 0 && (file.size + bytes > maxFileBytes || (daily && file.day !== day))) {
      await file.handle.close();
      file = undefined;
    }
    if (file === undefined) {
      const files = await readdir(directory);
      const newest = (await listAuditFiles(directory, prefix, files)).at(-1);
      // Keep appending to the newest file after a restart, unless it is full or of another day.
      if (newest !== undefined && newest.size + bytes <= maxFileBytes && (!daily || newest.day === day)) {
        file = { handle: await open(join(directory, newest.name), appendFlags), day: newest.day, size: newest.size };
      } else {
        file = { handle: await open(join(directory, auditFileName(prefix, firstSeq, day)), appendFlags), day, size: 0 };
        if (fsync === 'batch') await syncDirectory();
      }
    }
    return file;
  };

  const write = async (records: readonly AuditRecord[]) => {
    if (closed) throw new Error('jsonlAuditSink: the sink is closed');
    await start();
    const { entries, lines } = await chainBatch(head, records, hashText);
    const data = Buffer.from(`${lines.join('\n')}\n`);
    const bytes = data.length;
    const target = await fileFor(entries[0]?.seq ?? 1, bytes);
    try {
      if (fsync === 'none') writeAllNow(target.handle.fd, data);
      else {
        await writeAll(target.handle.fd, data);
        if (!syncedWrites) await target.handle.datasync();
      }
    } catch (error) {
      // Cut a partial write back so the file ends on a whole entry; if even that fails, reopen later.
      await target.handle.truncate(target.size).catch(async () => {
        await target.handle.close().catch(() => undefined);
        file = undefined;
        started = undefined;
        await releaseLock?.();
      });
      throw error;
    }
    target.size += bytes;
    const last = entries[entries.length - 1];
    if (last !== undefined) head = { seq: last.seq, hash: last.hash };
    return entries;
  };
  // The requests of one turn of the event loop share a write and its fdatasync.
  const queue = appendQueue(write, { defer: setImmediate });

  const sink: AuditSink & QueuedSink & { close(): Promise<void> } = {
    append: queue.append,
    [APPEND_WITHIN]: queue.appendWithin,
    sha256: nodeSha256,
    async close() {
      closed = true;
      await started?.catch(() => undefined);
      await file?.handle.close();
      file = undefined;
      await releaseLock?.();
    },
  };
  return sink;
}
