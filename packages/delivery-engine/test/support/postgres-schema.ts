import { randomBytes } from 'node:crypto';
import { POSTGRES_URL } from '@kyc/test-support';
import pg from 'pg';
import { afterAll } from 'vitest';

/** A schema name no other test file or package uses, so suites never collide. */
export function uniqueSchema(label: string): string {
  return `kyc_de_${label}_${randomBytes(4).toString('hex')}`;
}

/**
 * A maker of pools to the test database, each ended once the calling file's tests are done.
 * Call it at a test file's top level (it registers an `afterAll`).
 */
export function poolsEndedAfterAll(): (options?: Omit<pg.PoolConfig, 'connectionString'>) => pg.Pool {
  const pools: pg.Pool[] = [];
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
  });
  return (options = {}) => {
    const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 4, ...options });
    pools.push(pool);
    return pool;
  };
}

export { TEST_SEALING_KEYS } from './sealing-keys.js';
