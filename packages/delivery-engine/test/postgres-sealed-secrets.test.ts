import { randomBytes } from 'node:crypto';
import { HEADERS } from '@kyc/contracts';
import { findSecrets, postgresAvailable } from '@kyc/test-support';
import { describe, expect, it } from 'vitest';
import { createDeliveryEngine, type SealingKey } from '../src/index.js';
import { postgresDeliveryStore } from '../src/postgres.js';
import { MIGRATIONS, migrationsTable, tableNames } from '../src/store/schema.js';
import { bodyFor, pause, recordAttempts } from './support/attempts.js';
import { delivery, T0 } from './support/conformance-rows.js';
import { fullRun, newRunSecrets } from './support/full-run.js';
import { pgDumpOf, relationFilesOf, walSince } from './support/postgres-bytes.js';
import { poolsEndedAfterAll, uniqueSchema } from './support/postgres-schema.js';
import { loopbackOptions, startReceiver } from './support/receiver.js';

// On Postgres the key is the operator's: with it every secret is sealed before it leaves the
// worker, so the table files, the server's WAL and a pg_dump hold none; without it a secret is
// refused, never stored in clear. Tables of an earlier release are sealed at the upgrade.

const available = await postgresAvailable();
/** The migration that renamed the secret columns: the schema before it stored them in clear. */
const SEALING_VERSION =
  MIGRATIONS.find((m) => m.postgres(tableNames('')).some((sql) => sql.includes('TO sealed_auth_key')))?.version ?? 0;
const newPool = poolsEndedAfterAll();
const key = (id: string): SealingKey => ({ id, key: randomBytes(32).toString('base64') });

describe.skipIf(!available)('the Postgres store keeps no secret in clear', () => {
  it('after a full run: table files, the WAL written meanwhile, a pg_dump and the logs', async () => {
    const schema = uniqueSchema('sealed');
    const pool = newPool();
    const since = String((await pool.query('SELECT pg_current_wal_lsn() AS lsn')).rows[0]?.lsn);
    const secrets = newRunSecrets();
    try {
      const store = postgresDeliveryStore({ pool, schema, sealingKeys: [key('k1')] });
      const { logs } = await fullRun(store, secrets);
      const dump = pgDumpOf(schema);
      expect(dump).toContain('kyc-sealed:1:k1:');
      const files = await relationFilesOf(pool, schema);
      expect(Object.keys(files).some((name) => name.includes('.deliveries '))).toBe(true);
      const wal = await walSince(pool, since);
      // The scans read the right bytes: the sealed values are there, in the files and the WAL.
      const sealedIn = (buffers: Record<string, Buffer>) =>
        Object.values(buffers).some((bytes) => bytes.includes('kyc-sealed:1:k1:'));
      expect(sealedIn(files)).toBe(true);
      expect(sealedIn(wal)).toBe(true);
      expect(findSecrets({ texts: { logs, pg_dump: dump }, buffers: { ...files, ...wal } }, { ...secrets })).toEqual(
        [],
      );
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    }
  });

  it('refuses a secret without a key, saying what to pass; an event without one is stored', async () => {
    const schema = uniqueSchema('nokey');
    const pool = newPool();
    const engine = createDeliveryEngine({
      store: postgresDeliveryStore({ pool, schema }),
      ...(await loopbackOptions()),
    });
    try {
      const refused = engine.enqueue({
        url: 'https://127.0.0.1/hook',
        body: bodyFor('nokey'),
        authKey: 'kept-in-clear-nowhere',
      });
      await expect(refused).rejects.toMatchObject({
        code: 'sealing_key_missing',
        message: expect.stringMatching(
          /pass sealingKeys to postgresDeliveryStore.*or give the engine a `credentials` hook/,
        ),
      });
      await expect(refused).rejects.not.toMatchObject({ message: expect.stringContaining('kept-in-clear') });
      expect((await engine.enqueue({ url: 'https://127.0.0.1/hook', body: bodyFor('nokey-2') })).created).toBe(true);
      expect(pgDumpOf(schema)).not.toContain('kept-in-clear');
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    }
  });

  it('refuses to start with the wrong key or without one, naming the key id it needs', async () => {
    const schema = uniqueSchema('wrongkey');
    const pool = newPool();
    try {
      const first = postgresDeliveryStore({ pool, schema, sealingKeys: [key('k1')] });
      await first.migrate();
      await first.insert(delivery('d1'));
      for (const [keys, code] of [
        [[key('k1')], 'sealing_key_wrong'],
        [[key('k2')], 'sealing_key_missing'],
        [undefined, 'sealing_key_missing'],
      ] as const) {
        const store = postgresDeliveryStore({ pool, schema, ...(keys && { sealingKeys: keys }) });
        await expect(createDeliveryEngine({ store }).start()).rejects.toMatchObject({
          code,
          message: expect.stringContaining('"k1"'),
        });
      }
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    }
  });

  it('re-seals a backlog under a new key while two workers deliver it; then the old key can go', async () => {
    const schema = uniqueSchema('reseal');
    const k1 = key('k1');
    const k2 = key('k2');
    const authKey = randomBytes(24).toString('base64url');
    const receiver = await startReceiver(() => ({ status: 200, delayMs: 5 }));
    const backlog = 300;
    const pool = newPool({ max: 8 });
    try {
      const loopback = await loopbackOptions();
      const producer = createDeliveryEngine({
        store: postgresDeliveryStore({ pool, schema, sealingKeys: [k1] }),
        ...loopback,
      });
      for (let i = 0; i < backlog; i++)
        await producer.enqueue({ id: `b${i}`, url: receiver.url, body: bodyFor(`b${i}`), authKey });
      const attempts = recordAttempts();
      const stores = [0, 1].map(() => postgresDeliveryStore({ pool: newPool(), schema, sealingKeys: [k2, k1] }));
      const workers = stores.map((store) =>
        createDeliveryEngine({ store, concurrency: 2, perEndpointConcurrency: 2, ...loopback, ...attempts }),
      );
      for (const worker of workers) await worker.start();
      await attempts.waitFor(10);
      const result = await stores[0]?.resealSecrets?.();
      expect(result).toMatchObject({ sealingKeyId: 'k2', retiredKeyIds: ['k1'] });
      for (const worker of workers) await worker.stop();
      expect(pgDumpOf(schema)).not.toContain('kyc-sealed:1:k1:');

      const last = createDeliveryEngine({
        store: postgresDeliveryStore({ pool, schema, sealingKeys: [k2] }),
        ...(await loopbackOptions()),
        ...attempts,
      });
      await last.start();
      const seen = () => new Set(receiver.requests.map((r) => r.headers[HEADERS.webhookId])).size;
      for (let i = 0; i < 1000 && seen() < backlog; i++) await pause(20);
      await last.stop();
      expect(seen()).toBe(backlog);
      expect(attempts.events.every((e) => e.attempt.outcome === 'delivered')).toBe(true);
      expect(receiver.requests.every((r) => r.headers[HEADERS.authorization] === `Bearer ${authKey}`)).toBe(true);
    } finally {
      await receiver.close();
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    }
  });
});

describe.skipIf(!available)('a Postgres table written by the release before sealing (schema version 4)', () => {
  /** A schema at version 4 with rows its workers wrote: keys in clear, one rotated by an UPDATE. */
  async function schemaV4(pool: ReturnType<typeof newPool>, schema: string, keys: Record<string, string>) {
    const t = tableNames('', schema);
    await pool.query(`CREATE SCHEMA ${schema}`);
    await pool.query(migrationsTable(t));
    for (const migration of MIGRATIONS.filter((m) => m.version < SEALING_VERSION)) {
      for (const statement of migration.postgres(t)) await pool.query(statement);
      await pool.query(`INSERT INTO ${t.migrations} VALUES ($1, 'v4', 0)`, [migration.version]);
    }
    // That release's insert, verbatim in its columns.
    for (const [id, authKey, secret] of [
      ['old-1', keys.a, keys.s],
      ['old-2', keys.b, null],
    ]) {
      await pool.query(
        `INSERT INTO ${t.deliveries} (id, url, origin, auth_key, signing_secret, body, created_at, next_attempt_at)
         VALUES ($1, 'https://a.example/hook', 'https://a.example', $2, $3, $4, $5, $5)`,
        [id, authKey, secret, bodyFor(String(id)), T0],
      );
    }
    return t;
  }

  it('seals the clear values at the first start with a key; refuses to start without one', async () => {
    const schema = uniqueSchema('v4up');
    const pool = newPool();
    const keys = {
      a: randomBytes(24).toString('base64url'),
      b: randomBytes(24).toString('base64url'),
      s: `whsec_${randomBytes(32).toString('base64')}`,
    };
    try {
      await schemaV4(pool, schema, keys);
      expect(findSecrets({ texts: { dump: pgDumpOf(schema) } }, keys)).toHaveLength(3);
      await expect(postgresDeliveryStore({ pool, schema }).migrate()).rejects.toMatchObject({
        code: 'sealing_key_missing',
        message: expect.stringContaining('2 deliveries written by an earlier release'),
      });
      const store = postgresDeliveryStore({ pool, schema, sealingKeys: [key('k1')] });
      await store.migrate();
      expect(findSecrets({ texts: { dump: pgDumpOf(schema) } }, keys)).toEqual([]);
      const claims = await store.claim({ now: T0, limit: 5, leaseMs: 45_000, excludeOrigins: [] });
      const opened = Object.fromEntries(claims.map((c) => [c.id, store.openCredentials?.(c)]));
      expect(opened).toEqual({
        'old-1': { authKey: keys.a, signingSecret: keys.s },
        'old-2': { authKey: keys.b, signingSecret: undefined },
      });
      // The rows' old versions stay in the table file until vacuum reclaims them (docs/security.md):
      // VACUUM FULL rewrites it without them.
      await pool.query(`VACUUM FULL ${schema}.deliveries`);
      expect(findSecrets({ buffers: await relationFilesOf(pool, schema) }, keys)).toEqual([]);
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    }
  });
});
