import { POSTGRES_URL, postgresAvailable } from '@kyc/test-support';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIdempotencyTable, postgresIdempotencyStore } from '../src/postgres.js';
import { storeConformanceSuite } from './support/store-conformance.js';

const schema = `kyc_receiver_test_${process.pid}`;

describe.skipIf(!(await postgresAvailable()))('Postgres store (real server)', () => {
  const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 10 });
  const tableName = `${schema}.idempotency`;

  beforeAll(async () => {
    await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await createIdempotencyTable(pool, { tableName });
    await createIdempotencyTable(pool, { tableName }); // idempotent
  });
  afterAll(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pool.end();
  });

  // One injected clock for both replicas: leases and TTLs pass without sleeping.
  storeConformanceSuite('postgres', async () => {
    let time = Date.now();
    const now = () => time;
    const second = new pg.Pool({ connectionString: POSTGRES_URL, max: 10 });
    return {
      store: postgresIdempotencyStore(pool, { tableName, now }),
      replica: postgresIdempotencyStore(second, { tableName, now }),
      advance: async (ms) => {
        time += ms;
      },
      close: () => second.end(),
    };
  });

  it('refuses a table name that is not a plain identifier', () => {
    expect(() => postgresIdempotencyStore(pool, { tableName: 'x; DROP TABLE users' })).toThrow(/tableName/);
    expect(() => postgresIdempotencyStore({} as never)).toThrow(/query/);
  });
});
