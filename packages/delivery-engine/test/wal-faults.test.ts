import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';

const WORKER = fileURLToPath(new URL('./workers/wal-fault-worker.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'kyc-wal-faults-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface WorkerReport {
  readonly outcomes: string[];
  readonly health: { writable: boolean; problem?: string };
}

function runWorker(config: Record<string, unknown>, options: { strace?: string[] } = {}): WorkerReport {
  const node = [process.execPath, '--import', 'tsx', '--conditions=@kyc/source', WORKER];
  const [command = '', ...args] = options.strace === undefined ? node : ['strace', ...options.strace, ...node];
  const run = spawnSync(command, args, {
    cwd: ROOT,
    // One thread in libuv's pool: strace counts each thread's calls apart, and the WAL's
    // fsyncs then all come from the one thread, so "the second and later" means what it says.
    env: { ...process.env, KYC_WAL_FAULT: JSON.stringify(config), UV_THREADPOOL_SIZE: '1' },
  });
  expect(run.status, run.stderr.toString()).toBe(0);
  return JSON.parse(run.stdout.toString().trim().split('\n').at(-1) ?? '{}') as WorkerReport;
}

const storedIds = (path: string): string[] => {
  const db = new Database(path, { readonly: true });
  const ids = (db.prepare('SELECT id FROM deliveries ORDER BY id').all() as { id: string }[]).map((row) => row.id);
  db.close();
  return ids;
};

describe("durability 'power-loss' against the host", () => {
  it('stops writing for good once an fsync of the WAL fails, saying so, and never crashes', {
    timeout: 60_000,
  }, () => {
    const path = join(dir, 'eio.db');
    // A real failed fsync: strace makes the kernel's answer EIO for the WAL's second fsync and later.
    const report = runWorker(
      { path },
      {
        strace: [
          '-f',
          '-qq',
          '-o',
          '/dev/null',
          '-P',
          `${path}-wal`,
          '-e',
          'trace=fsync',
          '-e',
          'inject=fsync:error=EIO:when=2+',
        ],
      },
    );
    expect(report.outcomes[0]).toBe('stored');
    expect(report.outcomes[1]).toMatch(/^store_error: .*an fsync of .*-wal failed.*Restart the process/);
    // The failed enqueue's row may be stored all the same: the advice is to retry with the same id.
    expect(report.outcomes[1]).toMatch(/enqueue it again with the same id/);
    // Nothing is written after a failed fsync: the kernel may have dropped the pages.
    expect(report.outcomes[2]).toBe(report.outcomes[1]);
    expect(report.health).toMatchObject({ writable: false, problem: expect.stringContaining('fsync') });
  });

  it('syncs the WAL it opened at start when the process changes its working directory', { timeout: 60_000 }, () => {
    const home = join(dir, 'home');
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(home);
    mkdirSync(elsewhere);
    // A relative path, then process.chdir() before the first enqueue: every enqueue is stored
    // and resolves (the WAL was once opened by the relative path at the first sync: ENOENT,
    // an enqueue rejected whose row was stored).
    const report = runWorker({ path: 'webhooks.db', cwd: home, chdirAfterOpen: elsewhere });
    expect(report.outcomes).toEqual(['stored', 'stored', 'stored']);
    expect(storedIds(join(home, 'webhooks.db'))).toEqual(['e-0', 'e-1', 'e-2']);
  });
});
