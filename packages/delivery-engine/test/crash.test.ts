import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WEBHOOK_MAX_ATTEMPTS } from '@kyc/contracts';
import { afterAll, describe, expect, it } from 'vitest';
import { createDeliveryEngine, sqliteDeliveryStore } from '../src/index.js';
import { bodyFor, pause } from './support/attempts.js';
import { startReceiver, testCertificate } from './support/receiver.js';
import { spawnWorker, type Worker } from './support/spawn-worker.js';

const EVENTS = 300;
// Every third event goes to an endpoint that always answers 500: it must end `failed` after
// exactly four recorded attempts, whatever the kills did in between.
const failing = (i: number) => i % 3 === 2;
const KILLS = 6;
const CONCURRENCY = 8;
// The workers' clock runs 1000× fast, so the 1 + 5 + 15 minute schedule takes 1.3 s of wall time.
const FACTOR = 1000;

const dir = mkdtempSync(join(tmpdir(), 'kyc-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('crash safety over SQLite', () => {
  it('loses nothing when the engine process is killed with SIGKILL at random moments', {
    timeout: 120_000,
  }, async () => {
    // Answers take 5–30 ms so kills land while attempts are in flight.
    const receiver = await startReceiver((request) => ({
      status: request.path === '/fail' ? 500 : 200,
      delayMs: 5 + Math.floor(Math.random() * 25),
    }));
    const path = join(dir, 'crash.db');
    const producer = sqliteDeliveryStore({ path });
    const enqueuer = createDeliveryEngine({ store: producer, allowPrivateNetworks: ['127.0.0.0/8'] });
    const ids: string[] = [];
    for (let i = 0; i < EVENTS; i++) {
      const url = failing(i) ? `${receiver.origin}/fail` : receiver.url;
      ids.push((await enqueuer.enqueue({ url, body: bodyFor(`crash-${i}`) })).id);
    }
    // The file has one owner at a time: the workers own it from here; this process only reads.
    await producer.close();
    const store = sqliteDeliveryStore({ path });
    const view = createDeliveryEngine({ store, allowPrivateNetworks: ['127.0.0.0/8'] });

    const config = {
      store: 'sqlite',
      path,
      ca: (await testCertificate()).cert,
      concurrency: CONCURRENCY,
      timeScale: { factor: FACTOR, anchor: Date.now() },
      // Engine time: 1.5 s of wall time, beyond the 1 s (wall time) deadline.
      leaseMs: 1500 * FACTOR,
      deadlineMs: 1000,
      // Several kills can hit the same delivery; the worker_lost cap (tested in worker-loss)
      // would then add a worker_lost row to the log this test checks exactly.
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
      if ((await view.listDeliveries({ state: 'pending', limit: 1 })).length === 0) break;
    }
    // Restart until done: a last worker runs to completion (it exits once nothing is pending).
    for (let restart = 0; restart < 3; restart++) {
      const last = spawnWorker(config);
      const code = await last.exited;
      expect(code, last.stderr()).toBe(0);
      if ((await view.listDeliveries({ state: 'pending', limit: 1 })).length === 0) break;
    }

    let lost = 0;
    for (const [i, id] of ids.entries()) {
      const record = await view.getDelivery(id);
      const log = record?.attemptLog ?? [];
      if (failing(i)) {
        // Ends failed after exactly the four attempts of the schedule, all recorded (each a
        // 500, or a timeout if this shared machine stalled an answer past the 1 s deadline)…
        expect(record?.state, id).toBe('failed');
        expect(log, id).toHaveLength(WEBHOOK_MAX_ATTEMPTS);
        expect(
          log.every((a) => a.outcome === 'server_error' || a.outcome === 'timeout'),
          id,
        ).toBe(true);
      } else {
        // …or delivered, with exactly one recorded success…
        expect(record?.state, id).toBe('delivered');
        expect(log.filter((a) => a.outcome === 'delivered')).toHaveLength(1);
      }
      // …and every receipt beyond the recorded attempts is one whose process was killed
      // before it could record it (no log row): nothing else sends twice.
      const received = receiver.counts.get(id) ?? 0;
      expect(received - log.length, id).toBeGreaterThanOrEqual(0);
      lost += received - log.length;
    }
    const recorded = (await Promise.all(ids.map((id) => view.getDelivery(id)))).reduce(
      (sum, record) => sum + (record?.attemptLog.length ?? 0),
      0,
    );
    const duplicates = receiver.requests.length - recorded;
    expect(duplicates).toBe(lost);
    expect(kills).toBeGreaterThan(0);
    // Per kill: attempts in flight plus those sent whose result was still being written.
    expect(lost).toBeLessThanOrEqual(kills * 2 * CONCURRENCY);
    console.info(
      `crash test: ${EVENTS} events (${ids.filter((_, i) => failing(i)).length} to a failing endpoint), ${kills} SIGKILLs, ${duplicates} unrecorded receipts (in flight at a kill)`,
    );
    await receiver.close();
    await store.close();
  });
});
