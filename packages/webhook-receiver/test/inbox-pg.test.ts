import { POSTGRES_URL, postgresAvailable } from '@kyc/test-support';
import pg from 'pg';
import { describe } from 'vitest';
import { numberPlaceholders } from '../src/inbox/placeholders.js';
import { pgInbox } from '../src/inbox-pg.js';
import { inboxConformanceSuite } from './support/inbox-conformance.js';

describe.skipIf(!(await postgresAvailable()))('pg inbox (real Postgres)', () => {
  inboxConformanceSuite('pg', 'postgres', async () => {
    const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 20 });
    return {
      dialect: 'postgres',
      make: (options) => pgInbox(pool, options),
      exec: async (tx, sql, params) => {
        await tx.query(numberPlaceholders(sql), [...params]);
      },
      read: async (sql) => (await pool.query(sql)).rows,
      close: () => pool.end(),
    };
  });
});
