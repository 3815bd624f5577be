import { MYSQL_URL, mysqlAvailable, POSTGRES_URL, postgresAvailable } from '@kyc/test-support';
import { CompiledQuery, Kysely, MysqlDialect, PostgresDialect } from 'kysely';
import { createPool } from 'mysql2';
import pg from 'pg';
import { describe } from 'vitest';
import { numberPlaceholders } from '../src/inbox/placeholders.js';
import { kyselyInbox } from '../src/inbox-kysely.js';
import { inboxConformanceSuite } from './support/inbox-conformance.js';

function harness(db: Kysely<unknown>, dialect: 'postgres' | 'mysql') {
  const text = (sql: string) => (dialect === 'postgres' ? numberPlaceholders(sql) : sql);
  return {
    dialect,
    make: (options: object) => kyselyInbox(db, { ...options, dialect }),
    exec: async (tx: Kysely<unknown>, sql: string, params: readonly unknown[]) => {
      await tx.executeQuery(CompiledQuery.raw(text(sql), [...params]));
    },
    read: async (sql: string) => (await db.executeQuery(CompiledQuery.raw(sql))).rows as Record<string, unknown>[],
    close: () => db.destroy(),
  } as const;
}

describe.skipIf(!(await postgresAvailable()))('kysely inbox on Postgres (real server)', () => {
  inboxConformanceSuite('kysely-pg', 'postgres', async () =>
    harness(
      new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: POSTGRES_URL, max: 20 }) }) }),
      'postgres',
    ),
  );
});

describe.skipIf(!(await mysqlAvailable()))('kysely inbox on MariaDB/MySQL (real server)', () => {
  inboxConformanceSuite('kysely-mysql', 'mysql', async () =>
    harness(
      new Kysely({ dialect: new MysqlDialect({ pool: createPool({ uri: MYSQL_URL, connectionLimit: 20 }) }) }),
      'mysql',
    ),
  );
});
