import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createDeliveryEngine, sqliteDeliveryStore } from '../src/index.js';
import { bodyFor } from './support/attempts.js';
import { startReceiver, TEST_HOST, testCertificate } from './support/receiver.js';
import { spawnWorker } from './support/spawn-worker.js';

const EVENTS = 200;
// Each worker dials the receiver on its own loopback address: the receiver can tell them apart.
const ADDRESSES = ['127.0.0.1', '127.0.0.2'];

const dir = mkdtempSync(join(tmpdir(), 'kyc-sqlite-processes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("two processes sharing one SQLite file in mode 'shared'", () => {
  it('share the queue and send every event exactly once', { timeout: 90_000 }, async () => {
    const receiver = await startReceiver(() => ({ status: 200, delayMs: 5 + Math.floor(Math.random() * 20) }), {
      hosts: ADDRESSES,
    });
    const path = join(dir, 'shared.db');
    const store = sqliteDeliveryStore({ path, mode: 'shared' });
    const enqueuer = createDeliveryEngine({
      store,
      allowPrivateNetworks: ['127.0.0.0/8'],
      resolver: { resolve: async () => [{ address: '127.0.0.1', family: 4 }] },
    });
    const url = `https://${TEST_HOST}:${receiver.port}/hook`;
    const config = {
      store: 'sqlite',
      mode: 'shared',
      path,
      ca: (await testCertificate()).cert,
      concurrency: 8,
      leaseMs: 10_000,
      deadlineMs: 5_000,
      expectFinished: EVENTS,
    };
    try {
      const workers = ADDRESSES.map((resolveTo) => spawnWorker({ ...config, resolveTo }));
      // Queued once both are polling the file, so neither can finish the work before the other starts.
      await Promise.all(workers.map((worker) => worker.started));
      const ids: string[] = [];
      for (let i = 0; i < EVENTS; i++) ids.push((await enqueuer.enqueue({ url, body: bodyFor(`share-${i}`) })).id);
      for (const worker of workers) expect(await worker.exited, worker.stderr()).toBe(0);
      for (const id of ids) {
        const record = await enqueuer.getDelivery(id);
        expect(record?.state, id).toBe('delivered');
        expect(record?.attemptLog, id).toHaveLength(1);
        expect(receiver.counts.get(id), id).toBe(1);
      }
      expect(receiver.requests).toHaveLength(EVENTS);
      // Both processes took part (the file is shared, not owned by whoever opened it first).
      for (const address of ADDRESSES) {
        expect(receiver.requests.filter((r) => r.localAddress === address).length, address).toBeGreaterThan(0);
      }
    } finally {
      await receiver.close();
      await store.close();
    }
  });

  it('are never refused when they start on a new file at the same moment', { timeout: 60_000 }, async () => {
    // Creating the lock file's table in place once held a write lock on it for a commit, and a
    // process starting at that moment was refused as if an owner held the file (a CI failure).
    const ROUNDS = 25;
    const paths = Array.from({ length: ROUNDS }, (_, round) => join(dir, `together-${round}.db`));
    const starter = fileURLToPath(new URL('./workers/lock-starter.ts', import.meta.url));
    const root = fileURLToPath(new URL('../../..', import.meta.url));
    const config = JSON.stringify({ paths, mode: 'shared', firstAt: Date.now() + 4000, everyMs: 150 });
    const starters = Array.from({ length: 4 }, () => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@kyc/source', starter], {
        cwd: root,
        env: { ...process.env, KYC_LOCK_STARTER: config },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      return once(child, 'close').then(() => output.trim().split('\n'));
    });
    const lines = (await Promise.all(starters)).flat();
    expect(lines.filter((line) => !line.endsWith(' ok'))).toEqual([]);
    expect(lines).toHaveLength(4 * ROUNDS);
  });

  it('wait while another process creates the lock file, instead of taking it for an owner', {
    timeout: 60_000,
  }, async () => {
    const path = join(dir, 'creating.db');
    // Another process in the middle of creating the lock file's table (it holds the write lock
    // on the new file for 300 ms), as when engines start together.
    const creator = spawn(
      process.execPath,
      [
        '-e',
        `const Database = require('better-sqlite3');
         const db = new Database(${JSON.stringify(`${path}-lock`)});
         db.exec('BEGIN IMMEDIATE'); db.exec('CREATE TABLE IF NOT EXISTS engine_lock (held INTEGER)');
         process.stdout.write('creating\\n');
         setTimeout(() => { db.exec('COMMIT'); db.close(); }, 300);`,
      ],
      { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await once(creator.stdout, 'data');
    const store = sqliteDeliveryStore({ path, mode: 'shared' });
    try {
      await store.acquireOwnership?.();
    } finally {
      await store.close();
      await once(creator, 'exit');
    }
  });
});
