import { POSTGRES_URL, postgresAvailable } from '@kyc/test-support';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { postgresDeliveryStore } from '../src/postgres.js';
import { MIGRATIONS, migrationsTable, tableNames } from '../src/store/schema.js';
import { bodyFor } from './support/attempts.js';
import { poolsEndedAfterAll, TEST_SEALING_KEYS, uniqueSchema } from './support/postgres-schema.js';

// The Postgres store's own rows, beside the conformance suite (postgres-store.test.ts): how a
// database of an earlier version is upgraded, and how a claim writes.
const available = await postgresAvailable();
const newPool = poolsEndedAfterAll();

describe.skipIf(!available)('postgres store rows', () => {
  describe('postgresDeliveryStore schema upgrade', () => {
    it('adds the trace columns to a version 1 database without touching its rows', async () => {
      const schema = uniqueSchema('v1');
      const pool = newPool();
      const t = tableNames('', schema);
      const [v1] = MIGRATIONS;
      try {
        await pool.query(`CREATE SCHEMA ${schema}`);
        await pool.query(migrationsTable(t));
        for (const statement of v1?.postgres(t) ?? []) await pool.query(statement);
        await pool.query(`INSERT INTO ${t.migrations} VALUES (1, 'v1', 0)`);
        await pool.query(
          `INSERT INTO ${t.deliveries} (id, url, origin, body, created_at, next_attempt_at) VALUES ('old', 'https://a.example/', 'https://a.example', '{}', 5, 5)`,
        );

        const store = postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool, schema });
        await store.migrate();
        const [old] = await store.claim({ now: 10, limit: 5, leaseMs: 1000, excludeOrigins: [] });
        expect(old).toMatchObject({ id: 'old', createdAt: 5, traceParent: undefined, companyId: undefined });
        const traceParent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
        await store.insert({
          id: 'new',
          url: 'https://a.example/',
          origin: 'https://b.example',
          authKey: undefined,
          signingSecret: undefined,
          body: '{}',
          createdAt: 20,
          sessionId: 's-9',
          traceParent,
        });
        const [fresh] = await store.claim({ now: 20, limit: 5, leaseMs: 1000, excludeOrigins: [] });
        expect(fresh).toMatchObject({ traceParent, sessionId: 's-9' });
        const versions = await pool.query(`SELECT version FROM ${t.migrations} ORDER BY version`);
        expect(versions.rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version })));
        // Migrating again is a no-op.
        await store.migrate();
      } finally {
        await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      }
    });
  });

  describe('postgresDeliveryStore claims', () => {
    it('rewrite no indexed column, so Postgres updates the rows in place (HOT)', async () => {
      const schema = uniqueSchema('hot');
      // One connection: the statistics it flushes are those of the claim it ran.
      const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 1 });
      const store = postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool, schema });
      try {
        await store.migrate();
        for (let i = 0; i < 20; i++) {
          await store.insert({
            id: `hot-${i}`,
            url: 'https://a.example/hook',
            origin: 'https://a.example',
            authKey: undefined,
            signingSecret: undefined,
            body: bodyFor(`hot-${i}`),
            createdAt: 1000 + i,
          });
        }
        const hotUpdates = async () => {
          await pool.query('SELECT pg_stat_force_next_flush()');
          const { rows } = await pool.query(
            `SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'deliveries'`,
            [schema],
          );
          return { updates: Number(rows[0]?.n_tup_upd), hot: Number(rows[0]?.n_tup_hot_upd) };
        };
        const before = await hotUpdates();
        const claims = await store.claim({ now: 5000, limit: 20, leaseMs: 45_000, excludeOrigins: [] });
        expect(claims).toHaveLength(20);
        const after = await hotUpdates();
        expect(after.updates - before.updates).toBe(20);
        expect(after.hot - before.hot).toBe(20);
        // The lease still holds (on the database's clock, whatever `now` a worker passes): the
        // rows are not due again until it ends.
        expect(await store.claim({ now: 6000 + 3_600_000, limit: 20, leaseMs: 45_000, excludeOrigins: [] })).toEqual(
          [],
        );
        expect(await store.nextDueAt([])).toBeUndefined();
      } finally {
        await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await pool.end();
      }
    });
  });
});
