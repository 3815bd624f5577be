import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, rmSync, type Stats, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';

/** Who owns a delivery file, as its owner wrote it beside the file (`<path>-owner`). */
export interface OwnerRecord {
  readonly pid: number;
  readonly host: string;
  /** The process's start time in clock ticks since boot (Linux), so a reused pid is not taken for it. */
  readonly started: string | null;
  readonly since: number;
}

/**
 * The owner record backs the lock file's POSIX lock, which the owner's own process drops by
 * closing any descriptor of the lock file (a `readFileSync`, a copy of the data folder). A record
 * naming a live process on this host refuses a second engine whether the lock is there or not, and
 * before it opens the database: opening it would reset SQLite's shared memory under an owner
 * whose copy of the folder dropped SQLite's own locks too. A crashed owner's record names a dead
 * process and is ignored, so a successor still takes over at once. A plain file, read and
 * written whole (a rename), so it holds no lock of its own to lose.
 */
export function ownerRecordPath(realPath: string): string {
  return `${realPath}-owner`;
}

/** This process's record, written in place of any other; returns the file's identity. */
export function writeOwnerRecord(realPath: string, since: number): Stats {
  const path = ownerRecordPath(realPath);
  const record: OwnerRecord = { pid: process.pid, host: hostname(), started: startTime(process.pid), since };
  const draft = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(draft, `${JSON.stringify(record)}\n`);
    renameSync(draft, path);
  } finally {
    rmSync(draft, { force: true });
  }
  return statSync(path);
}

export function readOwnerRecord(realPath: string): OwnerRecord | undefined {
  let text: string;
  try {
    text = readFileSync(ownerRecordPath(realPath), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const value = JSON.parse(text) as Partial<OwnerRecord>;
    if (!Number.isSafeInteger(value.pid) || typeof value.host !== 'string' || typeof value.since !== 'number') {
      return undefined;
    }
    return { pid: value.pid as number, host: value.host, started: value.started ?? null, since: value.since };
  } catch {
    // Half-written by hand or by a disk that filled: it says nothing, and the lock still refuses.
    return undefined;
  }
}

/** Removes the record if it is still this process's (a successor may have written its own). */
export function removeOwnerRecord(realPath: string, since: number): void {
  const record = readOwnerRecord(realPath);
  if (record?.pid === process.pid && record.since === since) rmSync(ownerRecordPath(realPath), { force: true });
}

/**
 * The record of a live owner other than this process, if there is one. Another host's record
 * cannot be checked (and SQLite's WAL does not work across hosts anyway): only the lock counts then.
 */
export function liveOwnerElsewhere(realPath: string): OwnerRecord | undefined {
  const record = readOwnerRecord(realPath);
  if (record === undefined || record.pid === process.pid || record.host !== hostname()) return undefined;
  return isAlive(record) ? record : undefined;
}

export function describeRecord(record: OwnerRecord): string {
  return `process ${record.pid} on ${record.host}, since ${new Date(record.since).toISOString()}`;
}

function isAlive(record: OwnerRecord): boolean {
  try {
    process.kill(record.pid, 0);
  } catch (error) {
    // EPERM: the process exists and belongs to another user.
    if ((error as { code?: unknown }).code !== 'EPERM') return false;
  }
  const started = startTime(record.pid);
  return record.started === null || started === null || started === record.started;
}

/** Field 22 of `/proc/<pid>/stat`, after the command name (which may hold spaces and parentheses). */
function startTime(pid: number): string | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19] ?? null;
}
