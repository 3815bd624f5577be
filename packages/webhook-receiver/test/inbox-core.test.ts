import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { defineInbox, pruneInbox } from '../src/inbox.js';
import { pgInbox } from '../src/inbox-pg.js';
import { createWebhookReceiver, memoryIdempotencyStore } from '../src/index.js';
import { inboxSqlFile } from './support/inbox-sql-file.js';

const database = { dialect: 'postgres' as const, begin: () => Promise.reject(new Error('not used')) };

describe('inbox options and migrations', () => {
  it('ships SQL files holding exactly what migrateInbox runs', () => {
    for (const dialect of ['postgres', 'mysql'] as const) {
      // Through the package's export, as a customer reads it (and as the packed suites install it).
      const shipped = createRequire(import.meta.url).resolve(`@kyc/webhook-receiver/sql/inbox.${dialect}.sql`);
      expect(readFileSync(shipped, 'utf8')).toBe(inboxSqlFile(dialect));
    }
  });

  it('refuses wrong options, naming them', () => {
    expect(() => defineInbox(database, { table: 'x; DROP TABLE users' })).toThrow(/table must be letters/);
    expect(() => defineInbox(database, { lockTimeoutMs: 0 })).toThrow(/lockTimeoutMs/);
    expect(() => defineInbox(database, { staleResults: 'maybe' as never })).toThrow(/staleResults/);
    expect(() => defineInbox({ ...database, dialect: 'mysql' }, { table: 'a.b' })).toThrow(/bare name/);
    expect(() => pgInbox({} as never)).toThrow(/pg Pool/);
    expect(() =>
      createWebhookReceiver({
        authKeys: 'kyc_inbox_core_key_0123',
        inbox: defineInbox(database),
        idempotencyStore: memoryIdempotencyStore(),
        onEvent: () => undefined,
      }),
    ).toThrow(/exclude each other/);
    expect(() =>
      createWebhookReceiver({
        authKeys: 'kyc_inbox_core_key_0123',
        inbox: { ...defineInbox(database) },
        onEvent: () => undefined,
      }),
    ).toThrow(/made by an adapter/);
  });

  it('refuses a prune window or batch that is not a positive integer', async () => {
    await expect(pruneInbox(defineInbox(database), { olderThanMs: -1 })).rejects.toThrow(/olderThanMs/);
    await expect(pruneInbox(defineInbox(database), { batchSize: 0 })).rejects.toThrow(/batchSize/);
  });
});
