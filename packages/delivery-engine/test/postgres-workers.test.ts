import { POSTGRES_URL, postgresAvailable } from '@kyc/test-support';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createDeliveryEngine } from '../src/index.js';
import { postgresDeliveryStore } from '../src/postgres.js';
import { bodyFor, pause } from './support/attempts.js';
import { uniqueSchema } from './support/postgres-schema.js';
import { startReceiver, testCertificate } from './support/receiver.js';
import { spawnWorker } from './support/spawn-worker.js';

const EVENTS = 300;
const CONCURRENCY = 8;

describe.skipIf(!(await postgresAvailable()))('three workers sharing one Postgres', () => {
  it('deliver every event once, except attempts in flight in the worker killed mid-run', {
    timeout: 120_000,
  }, async () => {
    const receiver = await startReceiver(() => ({ status: 200, delayMs: 10 + Math.floor(Math.random() * 30) }));
    const schema = uniqueSchema('workers');
    const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 4 });
    const store = postgresDeliveryStore({ pool, schema });
    const enqueuer = createDeliveryEngine({ store, allowPrivateNetworks: ['127.0.0.0/8'] });
    try {
      await store.migrate();
      const config = {
        store: 'postgres',
        postgresUrl: POSTGRES_URL,
        schema,
        ca: (await testCertificate()).cert,
        concurrency: CONCURRENCY,
        leaseMs: 1500,
        deadlineMs: 1000,
        expectFinished: EVENTS,
      };
      const workers = [spawnWorker(config), spawnWorker(config), spawnWorker(config)];
      await Promise.all(workers.map((w) => w.started));
      // Enqueued while all three are idle: NOTIFY wakes them together and they share the queue.
      const ids: string[] = [];
      const enqueued = (async () => {
        for (let i = 0; i < EVENTS; i++) {
          ids.push((await enqueuer.enqueue({ url: receiver.url, body: bodyFor(`pgw-${i}`) })).id);
        }
      })();
      await receiver.waitFor(EVENTS / 3);
      await pause(Math.floor(Math.random() * 30));
      const [victim, ...survivors] = workers;
      victim?.child.kill('SIGKILL');
      const receivedAtKill = receiver.requests.length;
      await enqueued;
      expect(await victim?.exited).toBe('SIGKILL');
      for (const survivor of survivors) expect(await survivor.exited, survivor.stderr()).toBe(0);
      expect(receivedAtKill).toBeLessThan(EVENTS);

      let lost = 0;
      for (const id of ids) {
        const record = await enqueuer.getDelivery(id);
        expect(record?.state, id).toBe('delivered');
        expect(
          record?.attemptLog.filter((a) => a.outcome === 'delivered'),
          id,
        ).toHaveLength(1);
        const received = receiver.counts.get(id) ?? 0;
        expect(received, id).toBeGreaterThanOrEqual(1);
        lost += received - (record?.attemptLog.length ?? 0);
      }
      // Only the killed worker's attempts can have reached the receiver unrecorded: those in
      // flight plus those sent whose result was still being written (a slot is freed before the
      // write), at most 2 × its concurrency.
      expect(lost).toBeGreaterThanOrEqual(0);
      expect(lost).toBeLessThanOrEqual(2 * CONCURRENCY);
      expect(receiver.requests.length - EVENTS).toBe(lost);
      console.info(
        `postgres workers: ${EVENTS} events, 1 of 3 killed after ${receivedAtKill} receipts, ${lost} duplicate receipts`,
      );
    } finally {
      await receiver.close();
      await pool.query(`DROP SCHEMA ${schema} CASCADE`);
      await pool.end();
    }
  });
});
