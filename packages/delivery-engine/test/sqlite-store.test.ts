import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { DeliveryEngineError, sqliteDeliveryStore } from '../src/index.js';
import { MIGRATIONS, migrationsTable, SCHEMA_VERSION, tableNames } from '../src/store/schema.js';
import { storeConformance } from './store-conformance.js';

storeConformance('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kyc-sqlite-store-'));
  const path = join(dir, 'deliveries.db');
  const store = sqliteDeliveryStore({ path });
  return {
    store,
    openAnother: async () => sqliteDeliveryStore({ path }),
    oneWriter: true,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('sqliteDeliveryStore options', () => {
  it('rejects a missing path and an unsafe table prefix with a typed error', () => {
    expect(() => sqliteDeliveryStore({ path: '' })).toThrow(DeliveryEngineError);
    expect(() => sqliteDeliveryStore({ path: ':memory:', tablePrefix: 'x; DROP TABLE y' })).toThrow(/tablePrefix/);
  });

  it('keeps two prefixed stores in one file apart', async () => {
    const a = sqliteDeliveryStore({ path: ':memory:', tablePrefix: 'a_' });
    await a.insert({
      id: 'e1',
      url: 'https://a.example/',
      origin: 'https://a.example',
      authKey: undefined,
      signingSecret: undefined,
      body: '{}',
      createdAt: 1,
    });
    expect((await a.list()).map((d) => d.id)).toEqual(['e1']);
    await a.close();
  });

  it('records numbered migrations once, and refuses a file migrated past this engine', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kyc-sqlite-migrate-'));
    const path = join(dir, 'deliveries.db');
    try {
      const first = sqliteDeliveryStore({ path });
      await first.migrate();
      await first.migrate();
      await first.close();
      const raw = new Database(path);
      const versions = raw.prepare('SELECT version, description FROM delivery_schema_migrations').all();
      expect(versions).toEqual([
        { version: 1, description: expect.stringContaining('deliveries') },
        { version: 2, description: expect.stringContaining('trace context') },
        { version: 3, description: expect.stringContaining('owning process') },
        { version: 4, description: expect.stringContaining('owner generation') },
        { version: 5, description: expect.stringContaining('indexed by origin') },
        { version: 6, description: expect.stringContaining('sealed') },
      ]);
      // A newer engine added a version and this worker was left on the old code.
      raw.prepare(`INSERT INTO delivery_schema_migrations VALUES (${SCHEMA_VERSION + 1}, 'from the future', 0)`).run();
      raw.close();
      let error: unknown;
      try {
        sqliteDeliveryStore({ path });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(DeliveryEngineError);
      expect(error).toMatchObject({
        code: 'store_error',
        message: expect.stringContaining(`schema version ${SCHEMA_VERSION + 1}`),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('sqliteDeliveryStore schema upgrade', () => {
  it('adds the trace columns to a version 1 database without touching its rows', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kyc-sqlite-v1-'));
    const path = join(dir, 'deliveries.db');
    try {
      const db = new Database(path);
      const t = tableNames('');
      const [v1] = MIGRATIONS;
      db.exec(migrationsTable(t));
      for (const statement of v1?.sqlite(t) ?? []) db.exec(statement);
      db.prepare(`INSERT INTO ${t.migrations} VALUES (1, 'v1', 0)`).run();
      db.prepare(
        `INSERT INTO ${t.deliveries} (id, url, origin, body, created_at, next_attempt_at) VALUES ('old', 'https://a.example/', 'https://a.example', '{}', 5, 5)`,
      ).run();
      db.close();

      const store = sqliteDeliveryStore({ path });
      const [old] = await store.claim({ now: 10, limit: 5, leaseMs: 1000, excludeOrigins: [] });
      expect(old).toMatchObject({ id: 'old', createdAt: 5, traceParent: undefined, sessionId: undefined });
      const traceParent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      await store.insert({
        id: 'new',
        url: 'https://a.example/',
        origin: 'https://b.example',
        authKey: undefined,
        signingSecret: undefined,
        body: '{}',
        createdAt: 20,
        traceParent,
      });
      const [fresh] = await store.claim({ now: 20, limit: 5, leaseMs: 1000, excludeOrigins: [] });
      expect(fresh?.traceParent).toBe(traceParent);
      await store.close();
      const check = new Database(path);
      const versions = check.prepare(`SELECT version FROM ${t.migrations} ORDER BY version`).all();
      const indexes = check
        .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'deliveries' AND sql IS NOT NULL`)
        .pluck()
        .all();
      check.close();
      expect(versions).toEqual([
        { version: 1 },
        { version: 2 },
        { version: 3 },
        { version: 4 },
        { version: 5 },
        { version: 6 },
      ]);
      // Claims read one origin at a time: the index by due time alone, which they walked, is gone.
      expect(indexes.sort()).toEqual(['deliveries_created', 'deliveries_origin_due']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the owner of an SQLite file and its write-ahead log', () => {
  /** Inserts 500 deliveries at once (one group commit or a few) with ids and times of batch `batch`. */
  const insertBatch = (store: ReturnType<typeof sqliteDeliveryStore>, prefix: string, batch: number, body: string) =>
    Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        store.insert({
          id: `${prefix}-${batch}-${i}`,
          url: 'https://a.example/hook',
          origin: 'https://a.example',
          authKey: undefined,
          signingSecret: undefined,
          body,
          createdAt: batch * 1000 + i,
        }),
      ),
    );

  it('keeps the WAL from growing without end, checkpointing beside its commits rather than inside them', {
    timeout: 30_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kyc-sqlite-wal-'));
    const path = join(dir, 'deliveries.db');
    const store = sqliteDeliveryStore({ path });
    const body = JSON.stringify({ sessionId: 'wal', padding: 'x'.repeat(1500) });
    try {
      // About 1 MB of WAL per batch; unchecked, twelve batches leave a WAL of 12 MB and more.
      for (let batch = 0; batch < 12; batch++) {
        await insertBatch(store, 'wal', batch, body);
        await new Promise((resolve) => setTimeout(resolve, 400));
      }
      expect(statSync(`${path}-wal`).size).toBeLessThan(4 * 2 ** 20);
      expect((await store.list({ limit: 1 })).length).toBe(1);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps the WAL bounded under steady load too, when its commits never pause', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kyc-sqlite-wal-steady-'));
    const path = join(dir, 'deliveries.db');
    const store = sqliteDeliveryStore({ path });
    const body = JSON.stringify({ sessionId: 'wal', padding: 'x'.repeat(200) });
    // The WAL header's checkpoint sequence number (bytes 12–15): one more each time the log starts again.
    const walRestarts = () => {
      const header = Buffer.alloc(16);
      const fd = openSync(`${path}-wal`, 'r');
      try {
        readSync(fd, header, 0, header.length, 0);
      } finally {
        closeSync(fd);
      }
      return header.readUInt32BE(12);
    };
    let batches = 0;
    try {
      await insertBatch(store, 'first', 0, body);
      const restartsBefore = walRestarts();
      // Batch after batch with no pause between them (each about 50 pages of WAL, the restart
      // threshold 1 000): a passive checkpoint never finds the log idle, and unless restarted
      // the WAL keeps every frame. Until it has started again twice, within bounds of time and
      // of disk (1 500 batches are ~300 MB of WAL when it never restarts).
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      let restarts = 0;
      while (restarts < 2 && batches < 1500 && elapsed() < 20_000) {
        await insertBatch(store, 'steady', batches++, body);
        restarts = walRestarts() - restartsBefore;
      }
      expect(restarts, `${batches} batches in ${elapsed()} ms`).toBeGreaterThanOrEqual(2);
      expect((await store.list({ limit: 1 })).length).toBe(1);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
