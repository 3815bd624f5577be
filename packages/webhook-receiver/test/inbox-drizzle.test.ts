import { POSTGRES_URL, postgresAvailable } from '@kyc/test-support';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { describe } from 'vitest';
import { drizzleInbox } from '../src/inbox-drizzle.js';
import { inboxConformanceSuite } from './support/inbox-conformance.js';

describe.skipIf(!(await postgresAvailable()))('drizzle inbox on Postgres (real server)', () => {
  inboxConformanceSuite('drizzle-pg', 'postgres', async () => {
    const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 20 });
    const db = drizzle(pool);
    return {
      dialect: 'postgres',
      make: (options) => drizzleInbox(db, options),
      // Drizzle's own sql template: each value a bound parameter.
      exec: async (tx, text, params) => {
        const parts = text.split('?');
        await tx.execute(
          sql.join(
            parts.flatMap((part, i) => (i < params.length ? [sql.raw(part), sql`${params[i]}`] : [sql.raw(part)])),
          ),
        );
      },
      read: async (text) => (await pool.query(text)).rows,
      close: () => pool.end(),
    };
  });
});
