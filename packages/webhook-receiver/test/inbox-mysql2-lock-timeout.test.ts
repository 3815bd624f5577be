import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { sampleStatusWebhook } from '@kyc/contracts';
import { MYSQL_URL, mysqlAvailable } from '@kyc/test-support';
import { createWebhookReceiver } from '@kyc/webhook-receiver';
import { migrateInbox } from '@kyc/webhook-receiver/inbox';
import { mysql2Inbox } from '@kyc/webhook-receiver/inbox/mysql2';
import { createTestRequest } from '@kyc/webhook-receiver/testing';
import mysql, { type Pool, type PoolOptions, type RowDataPacket } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// The inbox's lock timeout is a session setting on MySQL/MariaDB. Measured with the server's
// own counter of SET statements (Com_set_option) on the connection, and the setting's value,
// both read by the handler inside the delivery's transaction.

const KEY = 'kyc_inbox_mysql2_lock_timeout_key';
const table = `kyc_inbox_mysql2_timeout_${process.pid}`;
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
let counter = 0;

/** What a delivery's handler saw on its connection. */
interface Seen {
  readonly thread: number;
  /** `@@SESSION.innodb_lock_wait_timeout`, in seconds. */
  readonly timeout: number;
  /** SET statements this connection has received since it opened (or was last reset). */
  readonly sets: number;
}

async function sessionOf(connection: mysql.PoolConnection | Pool): Promise<Seen> {
  const [[row]] = await connection.query<RowDataPacket[]>(
    'SELECT CONNECTION_ID() AS thread, @@SESSION.innodb_lock_wait_timeout AS timeout',
  );
  const [[status]] = await connection.query<RowDataPacket[]>("SHOW SESSION STATUS LIKE 'Com_set_option'");
  return { thread: Number(row?.thread), timeout: Number(row?.timeout), sets: Number(status?.Value) };
}

describe.skipIf(!(await mysqlAvailable()))(
  'mysql2 inbox: the lock timeout on pooled connections (real MariaDB/MySQL)',
  () => {
    const pools: Pool[] = [];
    const copies: string[] = [];
    const poolOf = (options: PoolOptions = {}) => {
      const pool = mysql.createPool({ uri: MYSQL_URL, connectionLimit: 1, ...options });
      pools.push(pool);
      return pool;
    };

    beforeAll(async () => {
      await migrateInbox(mysql2Inbox(poolOf(), { table }));
    });
    afterAll(async () => {
      const pool = poolOf();
      for (const t of [table, `${table}_sessions`]) await pool.query(`DROP TABLE IF EXISTS ${t}`);
      await Promise.all(pools.map((pool) => pool.end()));
      for (const copy of copies) rmSync(copy, { recursive: true, force: true });
    });

    /** Another copy of the receiver package in this process, as a second `node_modules` tree gives. */
    async function secondCopy(): Promise<{
      createWebhookReceiver: typeof createWebhookReceiver;
      mysql2Inbox: typeof mysql2Inbox;
    }> {
      // From the workspace's sources vitest loads the package itself: a fresh registry is a new copy.
      vi.resetModules();
      const fresh = {
        createWebhookReceiver: (await import('@kyc/webhook-receiver')).createWebhookReceiver,
        mysql2Inbox: (await import('@kyc/webhook-receiver/inbox/mysql2')).mysql2Inbox,
      };
      if (fresh.mysql2Inbox !== mysql2Inbox) return fresh;
      // An installed package is loaded by Node, one instance per file whatever vitest resets: copy
      // it beside itself under another name, where its own dependencies still resolve.
      const root = dirname(createRequire(import.meta.url).resolve('@kyc/webhook-receiver/package.json'));
      const name = `webhook-receiver-copy-${process.pid}`;
      const copy = join(dirname(root), name);
      cpSync(root, copy, { recursive: true });
      copies.push(copy);
      const receiver = (await import(/* @vite-ignore */ `@kyc/${name}`)) as typeof import('@kyc/webhook-receiver');
      const inbox = (await import(
        /* @vite-ignore */ `@kyc/${name}/inbox/mysql2`
      )) as typeof import('@kyc/webhook-receiver/inbox/mysql2');
      return { createWebhookReceiver: receiver.createWebhookReceiver, mysql2Inbox: inbox.mysql2Inbox };
    }

    /** A receiver on `pool` whose handler records what its connection holds, after `extra`. */
    function receiverOn(
      pool: Pool,
      lockTimeoutMs: number,
      seen: Seen[],
      extra = () => Promise.resolve(),
      copy = { createWebhookReceiver, mysql2Inbox },
    ) {
      const receiver = copy.createWebhookReceiver({
        authKeys: KEY,
        inbox: copy.mysql2Inbox(pool, { table, lockTimeoutMs }),
        onEvent: async (_event, context) => {
          seen.push(await sessionOf(context.tx));
          await extra();
        },
      });
      return async (id = `sess_mysql2_timeout_${counter++}_${process.pid}`) => {
        const payload = { ...sampleStatusWebhook, sessionId: id, status: 'APPROVED' };
        const response = await receiver.handle(createTestRequest({ payload, authKey: KEY, webhookId: `evt_${id}` }));
        return { status: response.status, retryAfter: response.headers.get('retry-after') };
      };
    }

    it('sends the SET once per pooled connection, not once per delivery, and it holds on every delivery', async () => {
      const pool = poolOf();
      const seen: Seen[] = [];
      const send = receiverOn(pool, 1500, seen);
      for (let i = 0; i < 5; i++) expect((await send()).status).toBe(200);
      expect(new Set(seen.map((s) => s.thread)).size).toBe(1);
      expect(seen.map((s) => s.timeout)).toEqual([2, 2, 2, 2, 2]); // 1.5 s, rounded up
      expect(seen.map((s) => s.sets)).toEqual([1, 1, 1, 1, 1]);
      expect((await sessionOf(pool)).sets).toBe(1);
    });

    it('sets it again when a connection served another inbox with a different timeout', async () => {
      const pool = poolOf();
      const seen: Seen[] = [];
      const short = receiverOn(pool, 1000, seen);
      const long = receiverOn(pool, 3000, seen);
      for (const send of [short, short, long, long, short]) expect((await send()).status).toBe(200);
      expect(seen.map((s) => s.timeout)).toEqual([1, 1, 3, 3, 1]);
      expect(seen.map((s) => s.sets)).toEqual([1, 1, 2, 2, 3]);
    });

    it('sets it again when another copy of the package in this process changed it on the same pool', async () => {
      const other = await secondCopy();
      expect(other.mysql2Inbox).not.toBe(mysql2Inbox);
      const pool = poolOf();
      const seen: Seen[] = [];
      const ours = receiverOn(pool, 1000, seen);
      const theirs = receiverOn(pool, 4000, seen, undefined, other);
      for (const send of [ours, theirs, ours, theirs, theirs]) expect((await send()).status).toBe(200);
      expect(seen.map((s) => s.timeout)).toEqual([1, 4, 1, 4, 4]);
      expect(seen.map((s) => s.sets)).toEqual([1, 2, 3, 4, 4]);
    });

    it('sets it on every delivery when the pool resets connections on release', async () => {
      const seen: Seen[] = [];
      const send = receiverOn(poolOf({ resetOnRelease: true }), 2000, seen);
      for (let i = 0; i < 3; i++) expect((await send()).status).toBe(200);
      expect(seen.map((s) => s.timeout)).toEqual([2, 2, 2]);
      // The reset also zeroes the session's counters: each delivery's own SET, counted afresh.
      expect(seen.map((s) => s.sets)).toEqual([1, 1, 1]);
    });

    it('still bounds the wait of a copy on a connection that skipped the SET: 409 + Retry-After', async () => {
      const pool = poolOf({ connectionLimit: 2 });
      const seen: Seen[] = [];
      let hold = 200;
      const send = receiverOn(pool, 1000, seen, () => pause(hold));
      // Both connections get the setting: two deliveries at once take one each.
      expect((await Promise.all([send(), send()])).map((a) => a.status)).toEqual([200, 200]);
      expect(new Set(seen.map((s) => s.thread)).size).toBe(2);
      hold = 2500;
      const id = `sess_mysql2_timeout_wait_${process.pid}`;
      const first = send(id);
      await pause(300);
      const waited = await send(id);
      expect(waited.status).toBe(409);
      expect(Number(waited.retryAfter)).toBeGreaterThan(0);
      expect((await first).status).toBe(200);
      expect(seen.at(-1)?.sets).toBe(1);
      // Four deliveries, two connections, two SETs: the copy that waited sent none.
      const connections = await Promise.all([pool.getConnection(), pool.getConnection()]);
      const sessions = await Promise.all(connections.map((c) => sessionOf(c)));
      for (const c of connections) c.release();
      expect(sessions.map((s) => [s.timeout, s.sets])).toEqual([
        [1, 1],
        [1, 1],
      ]);
    });
  },
);
