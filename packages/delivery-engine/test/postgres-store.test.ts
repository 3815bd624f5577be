import { postgresAvailable } from '@kyc/test-support';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createDeliveryEngine, DeliveryEngineError } from '../src/index.js';
import { postgresDeliveryStore } from '../src/postgres.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../src/store/schema.js';
import { storeConformance } from './store-conformance.js';
import { bodyFor, pause, recordAttempts } from './support/attempts.js';
import { poolsEndedAfterAll, TEST_SEALING_KEYS, uniqueSchema } from './support/postgres-schema.js';
import { loopbackOptions, startReceiver } from './support/receiver.js';

const available = await postgresAvailable();
const newPool = poolsEndedAfterAll();

describe.skipIf(!available)('postgres', () => {
  storeConformance('postgres', async () => {
    const schema = uniqueSchema('conf');
    const pool = newPool();
    const store = postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool, schema });
    await store.migrate();
    return {
      store,
      openAnother: async () => postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool: newPool(), schema }),
      // Leases run on the database's clock: a test ends them instead of waiting.
      endLeases: async () => {
        await pool.query(`UPDATE ${schema}.deliveries SET lease_until = 0 WHERE leased = 1`);
      },
      cleanup: async () => {
        await pool.query(`DROP SCHEMA ${schema} CASCADE`);
      },
    };
  });

  describe('postgresDeliveryStore outbox', () => {
    it('commits the delivery with the caller transaction, and not at all on rollback', async () => {
      const schema = uniqueSchema('outbox');
      const pool = newPool();
      const store = postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool, schema });
      const engine = createDeliveryEngine({ store, allowPrivateNetworks: ['127.0.0.0/8'] });
      await store.migrate();
      await pool.query(`CREATE TABLE ${schema}.sessions (id TEXT PRIMARY KEY, state TEXT NOT NULL)`);
      const body = JSON.stringify({ sessionId: 's-1' });
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query(`INSERT INTO ${schema}.sessions VALUES ('s-1', 'FINISHED')`);
        const { id } = await engine.enqueue({ url: 'https://127.0.0.1:9/hook', body }, { transaction: client });
        // Not visible outside the transaction before commit.
        expect(await engine.getDelivery(id)).toBeUndefined();
        await client.query('COMMIT');
        expect((await engine.getDelivery(id))?.state).toBe('pending');

        await client.query('BEGIN');
        await client.query(`INSERT INTO ${schema}.sessions VALUES ('s-2', 'FINISHED')`);
        const second = await engine.enqueue({ url: 'https://127.0.0.1:9/hook', body }, { transaction: client });
        await client.query('ROLLBACK');
        expect(await engine.getDelivery(second.id)).toBeUndefined();
      } finally {
        client.release();
        await pool.query(`DROP SCHEMA ${schema} CASCADE`);
      }
    });

    it('wakes an idle worker in another engine through LISTEN/NOTIFY, not by polling', async () => {
      const schema = uniqueSchema('notify');
      const pool = newPool();
      const receiver = await startReceiver(() => 200);
      const attempts = recordAttempts();
      // An hour between polls: only a notification can make this worker look at the queue.
      const worker = createDeliveryEngine({
        store: postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool, schema }),
        ...(await loopbackOptions()),
        pollIntervalMs: 3_600_000,
        onAttempt: attempts.onAttempt,
      });
      const producer = createDeliveryEngine({
        store: postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool: newPool(), schema }),
        ...(await loopbackOptions()),
      });
      try {
        await worker.start();
        // Let the worker find the queue empty and go to sleep first.
        await pause(300);
        const { id } = await producer.enqueue({ url: receiver.url, body: bodyFor('notify-1') });
        await attempts.waitFor(1, 10_000);
        expect(attempts.events[0]).toMatchObject({ deliveryId: id, state: 'delivered' });
      } finally {
        await worker.stop();
        await receiver.close();
        await pool.query(`DROP SCHEMA ${schema} CASCADE`);
      }
    });

    it('listens again after its LISTEN connection is killed, without returning the broken client to the pool', async () => {
      const schema = uniqueSchema('relisten');
      const pool = newPool();
      const receiver = await startReceiver(() => 200);
      const attempts = recordAttempts();
      const worker = createDeliveryEngine({
        store: postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool, schema }),
        ...(await loopbackOptions()),
        pollIntervalMs: 3_600_000,
        onAttempt: attempts.onAttempt,
      });
      const producer = createDeliveryEngine({
        store: postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool: newPool(), schema }),
        ...(await loopbackOptions()),
      });
      const admin = newPool();
      const listeners = async () =>
        (
          await admin.query(`SELECT pid FROM pg_stat_activity WHERE query = $1 AND pid <> pg_backend_pid()`, [
            `LISTEN "${schema}_kyc_deliveries"`,
          ])
        ).rows.map((row) => Number(row.pid));
      try {
        await worker.start();
        const [first] = await listeners();
        expect(first).toBeDefined();
        await admin.query('SELECT pg_terminate_backend($1)', [first]);
        // A new backend runs the LISTEN again (the first retry comes after 250 ms).
        let again: number[] = [];
        for (let i = 0; i < 100 && !again.some((pid) => pid !== first); i++) {
          await pause(50);
          again = await listeners();
        }
        expect(again.filter((pid) => pid !== first)).toHaveLength(1);
        await pause(100);
        const { id } = await producer.enqueue({ url: receiver.url, body: bodyFor('relisten-1') });
        await attempts.waitFor(1, 10_000);
        expect(attempts.events[0]).toMatchObject({ deliveryId: id, state: 'delivered' });
        // The pool still works: the killed client was destroyed, not handed out again.
        expect((await pool.query('SELECT 1 AS one')).rows[0]).toEqual({ one: 1 });
      } finally {
        await worker.stop();
        await receiver.close();
        await pool.query(`DROP SCHEMA ${schema} CASCADE`);
      }
    });

    it('start() called twice at once starts one loop with one LISTEN; a start that failed can be retried', async () => {
      const schema = uniqueSchema('restart');
      const admin = newPool();
      // Two connections: holding both makes the LISTEN connection impossible to get.
      const pool = newPool({ max: 2, connectionTimeoutMillis: 300 });
      const receiver = await startReceiver(() => 200);
      const attempts = recordAttempts();
      const engine = createDeliveryEngine({
        store: postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool, schema }),
        ...(await loopbackOptions()),
        pollIntervalMs: 3_600_000,
        onAttempt: attempts.onAttempt,
      });
      const listening = async () =>
        (
          await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = $1', [
            `LISTEN "${schema}_kyc_deliveries"`,
          ])
        ).rows[0]?.n;
      try {
        expect(await engine.getDelivery('none')).toBeUndefined(); // migrates
        const held = [await pool.connect(), await pool.connect()];
        await expect(engine.start()).rejects.toMatchObject({ code: 'store_error' });
        for (const client of held) client.release();
        await Promise.all([engine.start(), engine.start()]);
        expect(await listening()).toBe(1);
        const { id } = await engine.enqueue({ url: receiver.url, body: bodyFor('restart-1') });
        await attempts.waitFor(1, 10_000);
        expect(attempts.events[0]).toMatchObject({ deliveryId: id, state: 'delivered' });
        await Promise.all([engine.stop(), engine.stop()]);
        expect(await listening()).toBe(0);
      } finally {
        await engine.stop();
        await receiver.close();
        await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      }
    });

    it('refuses a transaction that is not a pg client with a typed error', async () => {
      const schema = uniqueSchema('badtx');
      const pool = newPool();
      const engine = createDeliveryEngine({
        store: postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool, schema }),
        allowPrivateNetworks: ['127.0.0.0/8'],
      });
      const event = { url: 'https://127.0.0.1:9/hook', body: bodyFor('badtx') };
      try {
        await expect(engine.enqueue(event, { transaction: {} as pg.PoolClient })).rejects.toMatchObject({
          code: 'invalid_option',
          message: expect.stringContaining('options.transaction'),
        });
      } finally {
        await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      }
    });

    it('runs numbered migrations once under concurrent starts, and refuses a schema newer than this engine', async () => {
      const schema = uniqueSchema('migrate');
      const pool = newPool();
      try {
        // Workers starting together: the advisory lock makes one migrate and the others find it done.
        await Promise.all(
          Array.from({ length: 4 }, () =>
            postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool, schema }).migrate(),
          ),
        );
        const { rows } = await pool.query(`SELECT version FROM ${schema}.delivery_schema_migrations`);
        expect(rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version })));
        const future = SCHEMA_VERSION + 1;
        await pool.query(`INSERT INTO ${schema}.delivery_schema_migrations VALUES (${future}, 'from the future', 0)`);
        await expect(
          postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool, schema }).migrate(),
        ).rejects.toMatchObject({
          code: 'store_error',
          message: expect.stringContaining(`schema version ${future}`),
        });
      } finally {
        await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      }
    });

    it('rejects a bad schema name with a typed error', () => {
      expect(() =>
        postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool: newPool(), schema: 'x"; drop' }),
      ).toThrow(DeliveryEngineError);
    });
  });
});
