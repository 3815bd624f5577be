import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { DeliveryEngineError, sqliteDeliveryStore } from '../src/index.js';
import { storeConformance } from './store-conformance.js';

storeConformance('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kyc-sqlite-store-'));
  const path = join(dir, 'deliveries.db');
  const store = sqliteDeliveryStore({ path });
  return {
    store,
    openAnother: async () => sqliteDeliveryStore({ path }),
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
      expect(versions).toEqual([{ version: 1, description: expect.stringContaining('deliveries') }]);
      // A newer engine added version 2 and this worker was left on the old code.
      raw.prepare("INSERT INTO delivery_schema_migrations VALUES (2, 'from the future', 0)").run();
      raw.close();
      let error: unknown;
      try {
        sqliteDeliveryStore({ path });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(DeliveryEngineError);
      expect(error).toMatchObject({ code: 'store_error', message: expect.stringContaining('schema version 2') });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
