import { POSTGRES_URL, postgresAvailable } from '@kyc/test-support';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createDeliveryEngine, sqliteDeliveryStore } from '../src/index.js';
import { postgresDeliveryStore } from '../src/postgres.js';
import { pause } from './support/attempts.js';
import { TEST_SEALING_KEYS, uniqueSchema } from './support/postgres-schema.js';

const available = await postgresAvailable();
const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 4 });
afterAll(() => pool.end());

/** Polls `check` every 10 ms for up to 5 s. */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await pause(10);
  expect(check()).toBe(true);
}

describe('engine.loopHealth()', () => {
  it('is not running before start() and after stop(), and not busy while it waits for work', async () => {
    const engine = createDeliveryEngine({ store: sqliteDeliveryStore({ path: ':memory:' }), pollIntervalMs: 20 });
    expect(engine.loopHealth()).toMatchObject({ running: false, busyMs: 0, store: { writable: true, fenced: false } });
    await engine.start();
    await pause(100);
    expect(engine.loopHealth().running).toBe(true);
    // Idle passes take well under a millisecond; a probe lands on one only by chance.
    await until(() => engine.loopHealth().busyMs === 0);
    await engine.stop();
    expect(engine.loopHealth()).toMatchObject({ running: false, busyMs: 0, store: { writable: true, fenced: false } });
  });

  it.skipIf(!available)(
    'reports how long the loop has been stuck on a locked Postgres table, and recovers',
    async () => {
      const schema = uniqueSchema('health');
      const store = postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool, schema });
      await store.migrate();
      const engine = createDeliveryEngine({ store, pollIntervalMs: 20 });
      const locker = await pool.connect();
      try {
        await engine.start();
        await until(() => engine.loopHealth().busyMs === 0);
        // Another session holds the queue table: the loop's next store call waits on the lock,
        // as it would on a half-open connection. The engine is still "running".
        await locker.query('BEGIN');
        await locker.query(`LOCK TABLE ${schema}.deliveries IN ACCESS EXCLUSIVE MODE`);
        await pause(400);
        const stuck = engine.loopHealth();
        expect(stuck.running).toBe(true);
        expect(stuck.busyMs).toBeGreaterThanOrEqual(300);
        await locker.query('ROLLBACK');
        await until(() => engine.loopHealth().busyMs < 100);
      } finally {
        await locker.query('ROLLBACK').catch(() => undefined);
        locker.release();
        await engine.stop();
        await pool.query(`DROP SCHEMA ${schema} CASCADE`);
      }
    },
  );
});
