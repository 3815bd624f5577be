import { sampleStatusWebhook } from '@kyc/contracts';
import { MYSQL_URL, mysqlAvailable } from '@kyc/test-support';
import { createWebhookReceiver } from '@kyc/webhook-receiver';
import { type Inbox, migrateInbox } from '@kyc/webhook-receiver/inbox';
import { drizzleInbox } from '@kyc/webhook-receiver/inbox/drizzle';
import { knexInbox } from '@kyc/webhook-receiver/inbox/knex';
import { kyselyInbox } from '@kyc/webhook-receiver/inbox/kysely';
import { createTestRequest } from '@kyc/webhook-receiver/testing';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/mysql2';
import knex, { type Knex } from 'knex';
import { CompiledQuery, Kysely, MysqlDialect } from 'kysely';
import { createPool, type Pool, type PoolOptions } from 'mysql2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The inbox's lock timeout is a session setting on MySQL/MariaDB. Through Knex it is sent once
// per pooled connection; through Kysely and Drizzle, which do not show the inbox their
// connection, in every delivery's transaction. Measured with the server's own counter of SET
// statements (Com_set_option) and the setting's value, read by the handler in the transaction.

const KEY = 'kyc_inbox_builders_lock_timeout_key';
const table = `kyc_inbox_builders_timeout_${process.pid}`;
let counter = 0;

/** What a delivery's handler saw on its connection. */
interface Seen {
  readonly thread: number;
  /** `@@SESSION.innodb_lock_wait_timeout`, in seconds. */
  readonly timeout: number;
  /** SET statements this connection has received since it opened (or was last reset). */
  readonly sets: number;
}

type Read = (sql: string) => Promise<readonly Record<string, unknown>[]>;

async function sessionOf(read: Read): Promise<Seen> {
  const [row] = await read('SELECT CONNECTION_ID() AS thread, @@SESSION.innodb_lock_wait_timeout AS timeout');
  const [status] = await read("SHOW SESSION STATUS LIKE 'Com_set_option'");
  return { thread: Number(row?.thread), timeout: Number(row?.timeout), sets: Number(status?.Value) };
}

const knexRead =
  (tx: Knex): Read =>
  async (text) =>
    ((await tx.raw(text)) as [Record<string, unknown>[]])[0];

describe.skipIf(!(await mysqlAvailable()))(
  'query-builder inboxes: the lock timeout on pooled connections (real MariaDB/MySQL)',
  () => {
    const closers: (() => Promise<unknown>)[] = [];
    const poolOf = (options: PoolOptions = {}): Pool => {
      const pool = createPool({ uri: MYSQL_URL, connectionLimit: 1, ...options });
      closers.push(() => pool.promise().end());
      return pool;
    };
    // Knex's MySQLPoolLike types the callbacks' errors narrower than mysql2 does; the pool is one.
    const nativePoolOf = (options: PoolOptions = {}) => poolOf(options) as unknown as Knex.MySQLPoolLike;
    const knexOf = (config: Knex.Config = { connection: MYSQL_URL }) => {
      const db = knex({ client: 'mysql2', pool: { min: 0, max: 1 }, ...config });
      closers.unshift(() => db.destroy());
      return db;
    };

    beforeAll(async () => {
      await migrateInbox(knexInbox(knexOf(), { table }));
    });
    afterAll(async () => {
      const db = knexOf();
      for (const t of [table, `${table}_sessions`]) await db.raw(`DROP TABLE IF EXISTS ${t}`);
      for (const close of closers) await close();
    });

    /** Sends `count` new events through `inbox`; what each handler saw, via `reader` on its tx. */
    async function deliver<Tx>(inbox: Inbox<Tx>, reader: (tx: Tx) => Read, count = 4): Promise<Seen[]> {
      const seen: Seen[] = [];
      const receiver = createWebhookReceiver({
        authKeys: KEY,
        inbox,
        onEvent: async (_event, context) => {
          seen.push(await sessionOf(reader(context.tx)));
        },
      });
      for (let i = 0; i < count; i++) {
        const id = `sess_builders_timeout_${counter++}_${process.pid}`;
        const payload = { ...sampleStatusWebhook, sessionId: id, status: 'APPROVED' };
        const response = await receiver.handle(createTestRequest({ payload, authKey: KEY, webhookId: `evt_${id}` }));
        expect(response.status).toBe(200);
      }
      return seen;
    }

    it('knex: sends the SET once per pooled connection, and it holds on every delivery', async () => {
      const db = knexOf();
      const seen = await deliver(knexInbox(db, { table, lockTimeoutMs: 1500 }), knexRead);
      expect(new Set(seen.map((s) => s.thread)).size).toBe(1);
      expect(seen.map((s) => s.timeout)).toEqual([2, 2, 2, 2]); // 1.5 s, rounded up
      expect(seen.map((s) => s.sets)).toEqual([1, 1, 1, 1]);
      expect((await sessionOf(knexRead(db))).sets).toBe(1);
    });

    it('knex on a native mysql2 pool (connectionPool): once per connection, and a duplicate sends none', async () => {
      const db = knexOf({ connectionPool: nativePoolOf() });
      const inbox = knexInbox(db, { table, lockTimeoutMs: 3000 });
      const seen = await deliver(inbox, knexRead);
      expect(seen.map((s) => [s.timeout, s.sets])).toEqual([
        [3, 1],
        [3, 1],
        [3, 1],
        [3, 1],
      ]);
      // A duplicate's transaction (key found, rolled back) sent no SET either.
      const payload = { ...sampleStatusWebhook, sessionId: `sess_builders_dup_${process.pid}`, status: 'APPROVED' };
      const request = () => createTestRequest({ payload, authKey: KEY, webhookId: `evt_dup_${process.pid}` });
      const receiver = createWebhookReceiver({ authKeys: KEY, inbox, onEvent: async () => undefined });
      for (let i = 0; i < 3; i++) expect((await receiver.handle(request())).status).toBe(200);
      expect((await sessionOf(knexRead(db))).sets).toBe(1);
    });

    it('knex on a native mysql2 pool with resetOnRelease: sets it on every delivery', async () => {
      const db = knexOf({ connectionPool: nativePoolOf({ resetOnRelease: true }) });
      const seen = await deliver(knexInbox(db, { table, lockTimeoutMs: 2000 }), knexRead, 3);
      expect(seen.map((s) => s.timeout)).toEqual([2, 2, 2]);
      // The reset also zeroes the session's counters: each delivery's own SET, counted afresh.
      expect(seen.map((s) => s.sets)).toEqual([1, 1, 1]);
    });

    it('kysely (MysqlDialect): sends the SET in every delivery', async () => {
      const db = new Kysely<unknown>({ dialect: new MysqlDialect({ pool: poolOf() }) });
      const seen = await deliver(
        kyselyInbox(db, { table, dialect: 'mysql', lockTimeoutMs: 2000 }),
        (tx) => async (text) => (await tx.executeQuery(CompiledQuery.raw(text))).rows as Record<string, unknown>[],
        3,
      );
      expect(new Set(seen.map((s) => s.thread)).size).toBe(1);
      expect(seen.map((s) => [s.timeout, s.sets])).toEqual([
        [2, 1],
        [2, 2],
        [2, 3],
      ]);
    });

    it('drizzle (mysql2): sends the SET in every delivery', async () => {
      const db = drizzle(poolOf().promise());
      const seen = await deliver(
        drizzleInbox(db, { table, dialect: 'mysql', lockTimeoutMs: 2000 }),
        (tx) => async (text) => ((await tx.execute(sql.raw(text))) as unknown as [Record<string, unknown>[]])[0],
        3,
      );
      expect(new Set(seen.map((s) => s.thread)).size).toBe(1);
      expect(seen.map((s) => [s.timeout, s.sets])).toEqual([
        [2, 1],
        [2, 2],
        [2, 3],
      ]);
    });
  },
);
