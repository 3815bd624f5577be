import { POSTGRES_URL, postgresAvailable } from '@kyc/test-support';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createDeliveryEngine, DeliveryEngineError } from '../src/index.js';
import { postgresDeliveryStore } from '../src/postgres.js';
import { storeConformance } from './store-conformance.js';
import { bodyFor, pause, recordAttempts } from './support/attempts.js';
import { uniqueSchema } from './support/postgres-schema.js';
import { loopbackOptions, startReceiver } from './support/receiver.js';

const available = await postgresAvailable();
const pools: pg.Pool[] = [];
const newPool = () => {
  const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 4 });
  pools.push(pool);
  return pool;
};
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
});

describe.skipIf(!available)('postgres', () => {
  storeConformance('postgres', async () => {
    const schema = uniqueSchema('conf');
    const pool = newPool();
    const store = postgresDeliveryStore({ pool, schema });
    await store.migrate();
    return {
      store,
      openAnother: async () => postgresDeliveryStore({ pool: newPool(), schema }),
      cleanup: async () => {
        await pool.query(`DROP SCHEMA ${schema} CASCADE`);
      },
    };
  });

  describe('postgresDeliveryStore outbox', () => {
    it('commits the delivery with the caller transaction, and not at all on rollback', async () => {
      const schema = uniqueSchema('outbox');
      const pool = newPool();
      const store = postgresDeliveryStore({ pool, schema });
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
        store: postgresDeliveryStore({ pool, schema }),
        ...(await loopbackOptions()),
        pollIntervalMs: 3_600_000,
        onAttempt: attempts.onAttempt,
      });
      const producer = createDeliveryEngine({
        store: postgresDeliveryStore({ pool: newPool(), schema }),
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

    it('rejects a bad schema name with a typed error', () => {
      expect(() => postgresDeliveryStore({ pool: newPool(), schema: 'x"; drop' })).toThrow(DeliveryEngineError);
    });
  });
});
