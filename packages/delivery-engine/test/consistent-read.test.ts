import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { POSTGRES_URL, postgresAvailable } from '@kyc/test-support';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createDeliveryEngine, type DeliveryRecord, type DeliveryStore, sqliteDeliveryStore } from '../src/index.js';
import { postgresDeliveryStore } from '../src/postgres.js';
import { bodyFor } from './support/attempts.js';
import { TEST_SEALING_KEYS, uniqueSchema } from './support/postgres-schema.js';
import { startReceiver, testCertificate } from './support/receiver.js';
import { spawnWorker } from './support/spawn-worker.js';

const EVENTS = 60;
// Timing is not what these tests check. The receiver lives in this process: a stall of it past a
// 5 s deadline fails the attempt, whose retry comes after the wait per event (the likeliest
// reading of a CI run on a loaded machine that said only "not delivered", with no worker error).
// The production deadline keeps the one attempt, and a failure now names the attempts it saw.
const DEADLINE_MS = 30_000;
const WAIT_PER_EVENT_MS = 30_000;

/** Why an event is still pending, with its attempts, for the failure message. */
function notDelivered(record: DeliveryRecord, workerStderr: string): string {
  const attempts = record.attemptLog
    .map((a) => `${a.outcome}${a.errorMessage ? ` (${a.errorMessage})` : ''}`)
    .join(', ');
  return `${record.id} was not delivered within ${WAIT_PER_EVENT_MS / 1000} s; attempts: ${attempts || 'none'}; worker stderr: ${workerStderr || 'empty'}`;
}
const hasPostgres = await postgresAvailable();
const dir = mkdtempSync(join(tmpdir(), 'kyc-consistent-read-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A worker in another process delivers one event at a time while this process reads the event
 * without pause, so some read always straddles the commit that records the attempt. A record
 * read from two moments (the row before the commit, its attempt log after it) says 0 attempts
 * beside an attempt-log entry: `getDelivery` must read one snapshot.
 */
async function readWhileAnotherProcessDelivers(
  store: DeliveryStore<unknown>,
  workerStore: Record<string, unknown>,
): Promise<void> {
  const receiver = await startReceiver(() => 200);
  const engine = createDeliveryEngine({ store, allowPrivateNetworks: ['127.0.0.0/8'] });
  const worker = spawnWorker({
    ...workerStore,
    ca: (await testCertificate()).cert,
    concurrency: 1,
    leaseMs: 2 * DEADLINE_MS,
    deadlineMs: DEADLINE_MS,
    expectFinished: EVENTS,
  });
  const torn: string[] = [];
  let readsWhilePending = 0;
  try {
    await worker.started;
    for (let i = 0; i < EVENTS; i++) {
      const { id } = await engine.enqueue({ url: receiver.url, body: bodyFor(`read-${i}`) });
      const giveUpAt = Date.now() + WAIT_PER_EVENT_MS;
      for (;;) {
        const record = await engine.getDelivery(id);
        if (record === undefined) throw new Error(`${id} vanished`);
        if (record.attempts !== record.attemptLog.length) {
          torn.push(`${id}: attempts ${record.attempts}, attempt log ${record.attemptLog.length}, ${record.state}`);
        }
        if (record.state !== 'pending') break;
        readsWhilePending++;
        // SQLite reads are synchronous: without a turn of the event loop the receiver in this
        // process would never answer.
        await new Promise(setImmediate);
        if (Date.now() > giveUpAt) throw new Error(notDelivered(record, worker.stderr()));
      }
    }
    expect(await worker.exited, worker.stderr()).toBe(0);
  } finally {
    worker.child.kill('SIGKILL');
    await receiver.close();
  }
  expect(torn).toEqual([]);
  expect(receiver.requests).toHaveLength(EVENTS);
  // The reads did run beside the worker's commits, not after them.
  expect(readsWhilePending).toBeGreaterThan(EVENTS);
}

describe('getDelivery while another process records attempts', () => {
  it('SQLite, a reader beside the owning process: one snapshot per read', { timeout: 90_000 }, async () => {
    const path = join(dir, 'owned.db');
    const receiver = await startReceiver(() => 200);
    const producer = sqliteDeliveryStore({ path });
    const enqueuer = createDeliveryEngine({ store: producer, allowPrivateNetworks: ['127.0.0.0/8'] });
    const ids: string[] = [];
    for (let i = 0; i < EVENTS; i++) {
      ids.push((await enqueuer.enqueue({ url: receiver.url, body: bodyFor(`owned-${i}`) })).id);
    }
    await producer.close();
    // This handle only reads: it never takes the lock the worker holds.
    const reader = createDeliveryEngine({
      store: sqliteDeliveryStore({ path }),
      allowPrivateNetworks: ['127.0.0.0/8'],
    });
    const worker = spawnWorker({
      store: 'sqlite',
      path,
      ca: (await testCertificate()).cert,
      concurrency: 1,
      leaseMs: 2 * DEADLINE_MS,
      deadlineMs: DEADLINE_MS,
      expectFinished: EVENTS,
    });
    const torn: string[] = [];
    let readsWhilePending = 0;
    try {
      await worker.started;
      for (const id of ids) {
        const giveUpAt = Date.now() + WAIT_PER_EVENT_MS;
        for (;;) {
          const record = await reader.getDelivery(id);
          if (record === undefined) throw new Error(`${id} vanished`);
          if (record.attempts !== record.attemptLog.length)
            torn.push(`${id}: ${record.attempts} ≠ ${record.attemptLog.length}`);
          if (record.state !== 'pending') break;
          readsWhilePending++;
          await new Promise(setImmediate);
          if (Date.now() > giveUpAt) throw new Error(notDelivered(record, worker.stderr()));
        }
      }
      expect(await worker.exited, worker.stderr()).toBe(0);
    } finally {
      worker.child.kill('SIGKILL');
      await receiver.close();
    }
    expect(torn).toEqual([]);
    expect(receiver.requests).toHaveLength(EVENTS);
    expect(readsWhilePending).toBeGreaterThan(EVENTS);
  });

  it.skipIf(!hasPostgres)(
    'Postgres: the row and its attempt log come from one snapshot',
    { timeout: 90_000 },
    async () => {
      const schema = uniqueSchema('read');
      const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 4 });
      const store = postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool, schema });
      try {
        await store.migrate();
        await readWhileAnotherProcessDelivers(store, { store: 'postgres', postgresUrl: POSTGRES_URL, schema });
      } finally {
        await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await pool.end();
      }
    },
  );
});
