import { MYSQL_URL, mysqlAvailable, POSTGRES_URL, postgresAvailable } from '@kyc/test-support';
import knex from 'knex';
import { describe } from 'vitest';
import { knexInbox } from '../src/inbox-knex.js';
import { inboxConformanceSuite } from './support/inbox-conformance.js';

function harness(db: ReturnType<typeof knex>, dialect: 'postgres' | 'mysql') {
  return {
    dialect,
    make: (options: object) => knexInbox(db, options),
    exec: async (tx: ReturnType<typeof knex>, sql: string, params: readonly unknown[]) => {
      await tx.raw(sql, [...params] as never[]);
    },
    read: async (sql: string) => {
      const result: unknown = await db.raw(sql);
      const rows = dialect === 'mysql' ? (result as unknown[])[0] : (result as { rows: unknown }).rows;
      return Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
    },
    close: () => db.destroy(),
  } as const;
}

describe.skipIf(!(await postgresAvailable()))('knex inbox on Postgres (real server)', () => {
  inboxConformanceSuite('knex-pg', 'postgres', async () =>
    harness(knex({ client: 'pg', connection: POSTGRES_URL, pool: { min: 0, max: 20 } }), 'postgres'),
  );
});

describe.skipIf(!(await mysqlAvailable()))('knex inbox on MariaDB/MySQL (real server)', () => {
  inboxConformanceSuite('knex-mysql', 'mysql', async () =>
    harness(knex({ client: 'mysql2', connection: MYSQL_URL, pool: { min: 0, max: 20 } }), 'mysql'),
  );
});
