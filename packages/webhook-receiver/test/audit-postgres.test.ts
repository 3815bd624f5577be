import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sampleStatusWebhook } from '@kyc/contracts';
import { POSTGRES_URL, postgresAvailable } from '@kyc/test-support';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuditEntry, auditTrail, callbackAuditSink, verifyAuditLog } from '../src/audit.js';
import { createWebhookReceiver } from '../src/index.js';
import { createAuditTable, postgresAuditSink, readPostgresAuditLog } from '../src/postgres.js';
import { createTestRequest } from '../src/testing.js';
import { auditSinkConformance } from './support/audit-conformance.js';
import { AUTH_KEY } from './support/receiver-table.js';

const run = promisify(execFile);
const tsx = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url));
const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const schema = `kyc_audit_test_${process.pid}`;
let tables = 0;

describe.skipIf(!(await postgresAvailable()))('Postgres audit sink (real server)', () => {
  const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 10 });
  const newTable = async () => {
    const tableName = `${schema}.audit_${++tables}`;
    await createAuditTable(pool, { tableName });
    return tableName;
  };
  const read = async (tableName: string) => {
    const entries: AuditEntry[] = [];
    for await (const entry of readPostgresAuditLog(pool, { tableName })) entries.push(entry);
    return entries;
  };

  beforeAll(async () => {
    await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  });
  afterAll(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pool.end();
  });

  auditSinkConformance('Postgres sink', async () => {
    const tableName = await newTable();
    return { sink: postgresAuditSink(pool, { tableName }), read: () => read(tableName), close: async () => undefined };
  });

  it('createAuditTable is idempotent, and the table refuses UPDATE, DELETE and TRUNCATE', async () => {
    const tableName = await newTable();
    await createAuditTable(pool, { tableName });
    const sink = postgresAuditSink(pool, { tableName });
    await sink.append((await deliverAndCollect(1))[0] as never);
    await expect(pool.query(`UPDATE ${tableName} SET outcome = 'duplicate'`)).rejects.toThrow(/insert-only \(UPDATE/);
    await expect(pool.query(`DELETE FROM ${tableName}`)).rejects.toThrow(/insert-only \(DELETE/);
    await expect(pool.query(`TRUNCATE ${tableName}`)).rejects.toThrow(/insert-only \(TRUNCATE/);
  });

  it('keeps each entry exactly as written (quotes, backslashes, a NUL the lookup columns cannot hold), and it verifies', async () => {
    const tableName = await newTable();
    const receiver = createWebhookReceiver({
      authKeys: AUTH_KEY,
      onEvent: () => undefined,
      logger: {},
      audit: auditTrail({ sink: postgresAuditSink(pool, { tableName }), includeBody: true }),
    });
    const ids = ['evt_nul_\u0000_end', 'evt_"quoted"_\\_é', 'evt_plain'];
    const body = new TextEncoder().encode(JSON.stringify({ ...sampleStatusWebhook, note: '"\\\u0001' }));
    await Promise.all(
      ids.map((id) =>
        receiver.receive({
          method: 'POST',
          header: (name) => ({ authorization: `Bearer ${AUTH_KEY}`, 'webhook-id': id })[name],
          readBody: async () => body,
        }),
      ),
    );
    const entries = await read(tableName);
    expect(entries.map((entry) => entry.webhookId).sort()).toEqual([...ids].sort());
    expect(await verifyAuditLog(entries)).toMatchObject({ ok: true, count: 3 });
    const { rows } = await pool.query(`SELECT webhook_id, entry::text AS text FROM ${tableName} ORDER BY seq`);
    expect(rows.map((row: { webhook_id: string }) => row.webhook_id).sort()).toEqual(
      ['evt_nul_\uFFFD_end', 'evt_"quoted"_\\_é', 'evt_plain'].sort(),
    );
    for (const [index, row] of (rows as { text: string }[]).entries())
      expect(row.text).toBe(JSON.stringify(entries[index]));
  });

  it('fills the lookup columns from the entries themselves when no value holds a NUL', async () => {
    const tableName = await newTable();
    const receiver = createWebhookReceiver({
      authKeys: AUTH_KEY,
      onEvent: () => undefined,
      logger: {},
      audit: auditTrail({ sink: postgresAuditSink(pool, { tableName }) }),
    });
    const body = new TextEncoder().encode(JSON.stringify(sampleStatusWebhook));
    const deliver = (id: string) =>
      receiver.receive({
        method: 'POST',
        header: (name) => ({ authorization: `Bearer ${AUTH_KEY}`, 'webhook-id': id })[name],
        readBody: async () => body,
      });
    // One batch of three, then a redelivery of the first (a duplicate) in a batch of its own.
    const answers = await Promise.all(['evt_a', 'evt_b', 'evt_"c"\\é'].map(deliver));
    answers.push(await deliver('evt_a'));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    const entries = await read(tableName);
    const { rows } = await pool.query(
      `SELECT seq, prev_hash, hash, received_at, session_id, webhook_id, outcome FROM ${tableName} ORDER BY seq`,
    );
    expect(rows).toEqual(
      entries.map((entry) => ({
        seq: String(entry.seq),
        prev_hash: entry.prevHash,
        hash: entry.hash,
        received_at: new Date(entry.receivedAt),
        session_id: entry.sessionId,
        webhook_id: entry.webhookId,
        outcome: entry.outcome,
      })),
    );
    expect(entries.map((entry) => entry.outcome).sort()).toEqual(['duplicate', 'processed', 'processed', 'processed']);
  });

  it('four replicas (separate pools and sinks) appending at once keep one valid chain', async () => {
    const tableName = await newTable();
    const pools = Array.from({ length: 4 }, () => new pg.Pool({ connectionString: POSTGRES_URL, max: 4 }));
    try {
      const receivers = pools.map((replicaPool) =>
        createWebhookReceiver({
          authKeys: AUTH_KEY,
          onEvent: () => undefined,
          logger: {},
          audit: auditTrail({ sink: postgresAuditSink(replicaPool, { tableName }), timeoutMs: 30_000 }),
        }),
      );
      const statuses = await Promise.all(
        Array.from({ length: 200 }, (_, index) =>
          (receivers[index % 4] as (typeof receivers)[number])
            .handle(createTestRequest({ payload: sampleStatusWebhook, authKey: AUTH_KEY, webhookId: `evt_r${index}` }))
            .then((response) => response.status),
        ),
      );
      expect(statuses.filter((status) => status === 200)).toHaveLength(200);
      const entries = await read(tableName);
      expect(entries.map((entry) => entry.seq)).toEqual(Array.from({ length: 200 }, (_, index) => index + 1));
      expect(new Set(entries.map((entry) => entry.webhookId)).size).toBe(200);
      expect(await verifyAuditLog(readPostgresAuditLog(pool, { tableName }))).toMatchObject({ ok: true, count: 200 });
    } finally {
      await Promise.all(pools.map((replicaPool) => replicaPool.end()));
    }
  });

  it('three receiver processes writing one table keep one valid chain', async () => {
    const tableName = await newTable();
    const script = fileURLToPath(new URL('./support/audit-postgres-writer.ts', import.meta.url));
    await Promise.all(
      [0, 1, 2].map((worker) =>
        run(tsx, ['--conditions=@kyc/source', script, POSTGRES_URL, tableName, String(worker), '40'], {
          cwd: packageRoot,
          timeout: 60_000,
        }),
      ),
    );
    const entries = await read(tableName);
    expect(entries).toHaveLength(120);
    expect(new Set(entries.map((entry) => entry.webhookId)).size).toBe(120);
    expect(await verifyAuditLog(readPostgresAuditLog(pool, { tableName }))).toMatchObject({ ok: true, count: 120 });
  });

  it('an administrator who edits, deletes or reorders rows (triggers off) is caught at the right entry', async () => {
    const tableName = await newTable();
    const sink = postgresAuditSink(pool, { tableName });
    for (const record of await deliverAndCollect(10)) await sink.append(record);
    const tamper = async (sql: string) => {
      await pool.query(`ALTER TABLE ${tableName} DISABLE TRIGGER USER`);
      await pool.query(sql);
      await pool.query(`ALTER TABLE ${tableName} ENABLE TRIGGER USER`);
    };
    const verify = () => verifyAuditLog(readPostgresAuditLog(pool, { tableName }));

    // The lookup column alone, then the entry itself.
    await tamper(`UPDATE ${tableName} SET session_id = 'someone-else' WHERE seq = 3`);
    expect(await verify()).toMatchObject({ ok: false, position: 3, seq: 3, reason: 'hash_mismatch' });
    await tamper(`UPDATE ${tableName} SET session_id = entry->>'sessionId' WHERE seq = 3`);
    await tamper(
      `UPDATE ${tableName} SET entry = replace(entry::text, '"processed"', '"duplicate"')::json WHERE seq = 5`,
    );
    expect(await verify()).toMatchObject({ ok: false, position: 5, seq: 5, reason: 'hash_mismatch' });
    await tamper(
      `UPDATE ${tableName} SET entry = replace(entry::text, '"duplicate"', '"processed"')::json WHERE seq = 5`,
    );
    expect(await verify()).toMatchObject({ ok: true, count: 10 });

    await tamper(`DELETE FROM ${tableName} WHERE seq = 7`);
    expect(await verify()).toMatchObject({ ok: false, position: 7, seq: 8, reason: 'broken_link' });

    // Reordering: swap the seq numbers of entries 8 and 9.
    await tamper(`UPDATE ${tableName} SET seq = 1000 WHERE seq = 8`);
    await tamper(`UPDATE ${tableName} SET seq = 8 WHERE seq = 9`);
    await tamper(`UPDATE ${tableName} SET seq = 9 WHERE seq = 1000`);
    expect(await verify()).toMatchObject({ ok: false, position: 7 });
  });

  it('refuses a table name that is not a plain identifier, and a client without query', () => {
    expect(() => postgresAuditSink(pool, { tableName: 'x; DROP TABLE users' })).toThrow(/tableName/);
    expect(() => postgresAuditSink({} as never)).toThrow(/query/);
  });
});

/** Records of real requests, captured through a callback sink, to append by hand. */
async function deliverAndCollect(count: number) {
  const records: AuditEntry[] = [];
  const receiver = createWebhookReceiver({
    authKeys: AUTH_KEY,
    onEvent: () => undefined,
    logger: {},
    audit: auditTrail({ sink: callbackAuditSink((batch) => void records.push(...batch)) }),
  });
  for (let index = 0; index < count; index++) {
    await receiver.handle(
      createTestRequest({ payload: sampleStatusWebhook, authKey: AUTH_KEY, webhookId: `evt_t${index}` }),
    );
  }
  // Strip the chain fields: the sink under test links them again.
  return records.map(({ v: _v, seq: _seq, prevHash: _prev, hash: _hash, ...record }) => record);
}
