import { postgresAvailable } from '@kyc/test-support';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { postgresDeliveryStore } from '../src/postgres.js';
import { MIGRATIONS, migrationsTable, type TableNames, tableNames } from '../src/store/schema.js';
import { attempt, delivery, T0 } from './support/conformance-rows.js';
import { poolsEndedAfterAll, TEST_SEALING_KEYS, uniqueSchema } from './support/postgres-schema.js';

// A rolling deploy: a worker of the release before schema version 3 keeps running beside new
// ones. Issue 32: its claim took all 8 rows a new worker had in flight. Since schema version 4
// the database refuses its claims (src/store/postgres/refuse-old-claims.ts).
const available = await postgresAvailable();
const newPool = poolsEndedAfterAll();

/**
 * The claim of the previous release, verbatim (`git show b3256e2^:packages/delivery-engine/src/store/postgres.ts`,
 * with its CLAIM_COLUMNS): the lease moves `next_attempt_at`, the due time goes to `due_at`.
 * Parameters: now, lease end, limit, excluded origins, per-origin room, busy origins and counts.
 */
function previousReleaseClaim(t: TableNames): string {
  const claimColumns =
    'id, url, origin, auth_key, signing_secret, body, attempts, round_attempts, round, lost_leases, lease_token, due_at, created_at, session_id, company_id, trace_parent'
      .split(', ')
      .map((column) => `d.${column}`)
      .join(', ');
  return `WITH cand AS (SELECT id, origin, next_attempt_at FROM ${t.deliveries}
                        WHERE state = 'pending' AND next_attempt_at <= $1 AND NOT (origin = ANY($4::text[]))
                        ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED),
              busy AS (SELECT * FROM unnest($6::text[], $7::int[]) AS b(origin, n)),
              c AS (SELECT r.id FROM (SELECT id, origin, next_attempt_at,
                                             row_number() OVER (PARTITION BY origin ORDER BY next_attempt_at) AS n
                                        FROM cand) r
                      LEFT JOIN busy b ON b.origin = r.origin
                     WHERE r.n <= $5 - coalesce(b.n, 0)
                     ORDER BY r.next_attempt_at LIMIT $3)
         UPDATE ${t.deliveries} d
            SET lost_leases = d.lost_leases + d.leased, leased = 1, lease_token = d.lease_token + 1,
                due_at = d.next_attempt_at, next_attempt_at = $2
           FROM c WHERE d.id = c.id
         RETURNING ${claimColumns}`;
}

const oldClaim = (pool: pg.Pool, t: TableNames, now: number, limit = 8) =>
  pool.query(previousReleaseClaim(t), [now, now + 45_000, limit, [], limit, [], []]);

describe.skipIf(!available)('postgres rolling deploy: a worker of the release before schema v3', () => {
  it('cannot claim the rows a new worker holds: its claim is refused, and the new worker records all 8', async () => {
    const schema = uniqueSchema('roll');
    const pool = newPool();
    const t = tableNames('', schema);
    const store = postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool, schema });
    try {
      await store.migrate();
      for (let i = 0; i < 8; i++) await store.insert(delivery(`d${i}`, { origin: `https://o${i}.example` }));
      const held = await store.claim({ now: T0, limit: 8, leaseMs: 45_000, excludeOrigins: [] });
      expect(held).toHaveLength(8);

      const refused = await oldClaim(pool, t, T0 + 10).then(
        () => undefined,
        (error: unknown) => error as { message: string; hint?: string; code?: string },
      );
      // Schema version 4 refused it with a trigger (55000, "older than schema version 3"); since
      // version 6 renamed the secret columns its statement fails before it runs (42703).
      expect(refused?.message).toMatch(/column d\.auth_key does not exist/);
      expect(refused?.code).toBe('42703');

      const next = { state: 'delivered' as const, nextAttemptAt: undefined, finishedAt: T0 + 20 };
      const recorded = await Promise.all(held.map((c) => store.complete(c, attempt(1, 'delivered'), next)));
      expect(recorded).toEqual(Array(8).fill(true));
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    }
  });

  it('is refused on an empty queue too, so it fails loudly at once; since schema 5 its producers are refused too', async () => {
    const schema = uniqueSchema('rollempty');
    const pool = newPool();
    const t = tableNames('', schema);
    const store = postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool, schema });
    try {
      await store.migrate();
      await expect(oldClaim(pool, t, T0)).rejects.toThrow(/auth_key/);
      // The previous releases' insert would store an Auth Key in clear: it fails before it writes.
      await expect(
        pool.query(
          `INSERT INTO ${t.deliveries} (id, url, origin, auth_key, signing_secret, body, created_at, next_attempt_at)
           VALUES ('old-producer', 'https://a.example/hook', 'https://a.example', 'a-key-in-clear-000', NULL, '{}', $1, $1)`,
          [T0],
        ),
      ).rejects.toMatchObject({ code: '42703' });
      expect(await store.claim({ now: T0, limit: 1, leaseMs: 45_000, excludeOrigins: [] })).toEqual([]);
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    }
  });

  it('keeps the leases old workers took before the upgrade until they end', async () => {
    const schema = uniqueSchema('rolllease');
    const pool = newPool();
    const t = tableNames('', schema);
    try {
      // A database at schema version 3, worked by an old worker.
      await pool.query(`CREATE SCHEMA ${schema}`);
      await pool.query(migrationsTable(t));
      for (const migration of MIGRATIONS.filter((m) => m.version <= 3)) {
        for (const statement of migration.postgres(t)) await pool.query(statement);
        await pool.query(`INSERT INTO ${t.migrations} VALUES ($1, 'before', 0)`, [migration.version]);
      }
      const store = postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool, schema });
      // That release's lease ran on the wall clock, which is the database's here: 400 ms.
      const now = Date.now();
      // Enqueued by that release too, with its key in clear (sealed by the upgrade below).
      await pool.query(
        `INSERT INTO ${t.deliveries} (id, url, origin, auth_key, body, created_at, next_attempt_at)
         VALUES ('taken', 'https://a.example/hook', 'https://a.example', 'k-secret-value-123456', '{}', $1, $1)`,
        [now],
      );
      const { rows } = await pool.query(previousReleaseClaim(t), [now, now + 400, 8, [], 8, [], []]);
      expect(rows.map((row) => row.id)).toEqual(['taken']);

      await store.migrate();
      expect(await store.claim({ now: now + 3_600_000, limit: 1, leaseMs: 45_000, excludeOrigins: [] })).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const [again] = await store.claim({ now: Date.now(), limit: 1, leaseMs: 45_000, excludeOrigins: [] });
      expect(again).toMatchObject({ id: 'taken', lostLeases: 1 });
      expect(again && store.openCredentials?.(again)?.authKey).toBe('k-secret-value-123456');
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    }
  });
});

/**
 * The claim of the release before schema versions 5 and 6, verbatim (`git show 2387925:packages/delivery-engine/src/store/postgres/statements.ts`,
 * with its CLAIM_COLUMNS): it returns `auth_key` and `signing_secret`, and would send what it
 * finds there as the Bearer key and the signing secret, sealed values included.
 */
function schema4Claim(t: TableNames): string {
  const claimColumns =
    'id, url, origin, auth_key, signing_secret, body, attempts, round_attempts, round, lost_leases, lease_token, created_at, session_id, company_id, trace_parent'
      .split(', ')
      .map((column) => `d.${column}`)
      .join(', ');
  const dbNow = '(extract(epoch FROM now()) * 1000)::bigint';
  return `WITH cand AS (SELECT id, origin, next_attempt_at FROM ${t.deliveries}
                      WHERE state = 'pending' AND next_attempt_at <= $1 AND (leased = 0 OR lease_until <= ${dbNow})
                        AND NOT (origin = ANY($4::text[]))
                      ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED),
            busy AS (SELECT * FROM unnest($6::text[], $7::int[]) AS b(origin, n)),
            c AS (SELECT r.id FROM (SELECT id, origin, next_attempt_at,
                                           row_number() OVER (PARTITION BY origin ORDER BY next_attempt_at) AS n
                                      FROM cand) r
                    LEFT JOIN busy b ON b.origin = r.origin
                   WHERE r.n <= $5 - coalesce(b.n, 0)
                   ORDER BY r.next_attempt_at LIMIT $3)
       UPDATE ${t.deliveries} d
          SET lost_leases = d.lost_leases + d.leased, leased = 1, lease_token = d.lease_token + 1,
              lease_until = ${dbNow} + $2
         FROM c WHERE d.id = c.id
       RETURNING ${claimColumns}, d.next_attempt_at AS due_at`;
}

describe.skipIf(!available)(
  'postgres rolling deploy: a worker of the release before schema v5 and v6 (the due index by time, secrets in clear)',
  () => {
    it('claims nothing (it would send a sealed value as the key) and enqueues nothing in clear', async () => {
      const schema = uniqueSchema('roll5');
      const pool = newPool();
      const t = tableNames('', schema);
      const store = postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool, schema });
      try {
        await store.migrate();
        await store.insert(delivery('sealed-row'));
        await expect(pool.query(schema4Claim(t), [T0, 45_000, 8, [], 8, [], []])).rejects.toMatchObject({
          code: '42703',
        });
        await expect(
          pool.query(
            `INSERT INTO ${t.deliveries} (id, url, origin, auth_key, signing_secret, body, created_at, next_attempt_at)
           VALUES ('clear', 'https://a.example/hook', 'https://a.example', 'a-key-in-clear-000', NULL, '{}', $1, $1)`,
            [T0],
          ),
        ).rejects.toMatchObject({ code: '42703' });
        // The new worker still has the row, untouched.
        const [claimed] = await store.claim({ now: T0, limit: 8, leaseMs: 45_000, excludeOrigins: [] });
        expect(claimed).toMatchObject({ id: 'sealed-row', lostLeases: 0 });
      } finally {
        await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      }
    });
  },
);
