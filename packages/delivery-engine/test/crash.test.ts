import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDeliveryEngine, sqliteDeliveryStore } from '../src/index.js';
import { bodyFor, pause } from './support/attempts.js';
import { startReceiver, testCertificate } from './support/receiver.js';
import { spawnWorker, type Worker } from './support/spawn-worker.js';

const EVENTS = 300;
const KILLS = 6;
const CONCURRENCY = 8;

const dir = mkdtempSync(join(tmpdir(), 'kyc-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('crash safety over SQLite', () => {
  it('loses nothing when the engine process is killed with SIGKILL at random moments', {
    timeout: 120_000,
  }, async () => {
    // Answers take 5–30 ms so kills land while attempts are in flight.
    const receiver = await startReceiver(() => ({ status: 200, delayMs: 5 + Math.floor(Math.random() * 25) }));
    const path = join(dir, 'crash.db');
    const store = sqliteDeliveryStore({ path });
    const enqueuer = createDeliveryEngine({ store, allowPrivateNetworks: ['127.0.0.0/8'] });
    const ids: string[] = [];
    for (let i = 0; i < EVENTS; i++) {
      ids.push((await enqueuer.enqueue({ url: receiver.url, body: bodyFor(`crash-${i}`) })).id);
    }

    const config = {
      store: 'sqlite',
      path,
      ca: (await testCertificate()).cert,
      concurrency: CONCURRENCY,
      leaseMs: 1500,
      deadlineMs: 1000,
      // Several kills can hit the same delivery; the worker_lost cap (tested in engine-leases)
      // would then push it a real minute out, longer than this suite should run.
      maxWorkerLosses: 20,
    };
    let kills = 0;
    for (let round = 0; round < KILLS; round++) {
      const worker: Worker = spawnWorker(config);
      await worker.started;
      await pause(30 + Math.floor(Math.random() * 200));
      worker.child.kill('SIGKILL');
      const code = await worker.exited;
      if (code === 'SIGKILL') kills++;
      if ((await enqueuer.listDeliveries({ state: 'pending', limit: 1 })).length === 0) break;
    }
    // Restart until done: a last worker runs to completion (it exits once nothing is pending).
    for (let restart = 0; restart < 3; restart++) {
      const last = spawnWorker(config);
      const code = await last.exited;
      expect(code, last.stderr()).toBe(0);
      if ((await enqueuer.listDeliveries({ state: 'pending', limit: 1 })).length === 0) break;
    }

    let lost = 0;
    for (const id of ids) {
      const record = await enqueuer.getDelivery(id);
      // Every event ends delivered (the receiver always answers 200 in time)…
      expect(record?.state, id).toBe('delivered');
      const received = receiver.counts.get(id) ?? 0;
      // …was received at least once, and each extra receipt is an attempt that never got
      // recorded because its process was killed (no log row): nothing else sends twice.
      expect(received, id).toBeGreaterThanOrEqual(1);
      const logged = record?.attemptLog.length ?? 0;
      expect(record?.attemptLog.filter((a) => a.outcome === 'delivered')).toHaveLength(1);
      expect(received - logged, id).toBeGreaterThanOrEqual(0);
      lost += received - logged;
    }
    const duplicates = receiver.requests.length - EVENTS;
    expect(duplicates).toBe(lost);
    expect(kills).toBeGreaterThan(0);
    // Per kill: attempts in flight plus those sent whose result was still being written.
    expect(lost).toBeLessThanOrEqual(kills * 2 * CONCURRENCY);
    console.info(
      `crash test: ${EVENTS} events, ${kills} SIGKILLs, ${duplicates} duplicate receipts (in flight at a kill)`,
    );
    await receiver.close();
    await store.close();
  });
});
