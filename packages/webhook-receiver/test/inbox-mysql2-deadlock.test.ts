import { sampleStatusWebhook } from '@kyc/contracts';
import { MYSQL_URL, mysqlAvailable } from '@kyc/test-support';
import { createWebhookReceiver } from '@kyc/webhook-receiver';
import { migrateInbox } from '@kyc/webhook-receiver/inbox';
import { mysql2Inbox } from '@kyc/webhook-receiver/inbox/mysql2';
import { createTestRequest } from '@kyc/webhook-receiver/testing';
import mysql, { type Pool } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// InnoDB, when the transaction holding an event's key rolls back while two or more copies of the
// event wait on that key: each waiter holds a shared lock on the freed key and wants it
// exclusive to insert it, so InnoDB makes one of them a deadlock victim (error 1213, the whole
// transaction rolled back). docs/idempotency.md promises that a waiter runs when the holder rolls
// back; the victim answered 409 at once instead (and the sender then waited a minute).

const KEY = 'kyc_inbox_mysql2_deadlock_key';
const table = `kyc_inbox_mysql2_deadlock_${process.pid}`;
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe.skipIf(!(await mysqlAvailable()))('mysql2 inbox: copies waiting on a key whose holder rolls back', () => {
  let pool: Pool;
  beforeAll(async () => {
    pool = mysql.createPool({ uri: MYSQL_URL, connectionLimit: 8 });
    await migrateInbox(mysql2Inbox(pool, { table }));
  });
  afterAll(async () => {
    for (const t of [table, `${table}_sessions`]) await pool.query(`DROP TABLE IF EXISTS ${t}`);
    await pool.end();
  });

  it.each([2, 3])(
    'with %i copies waiting: one runs the handler, the others find its key; none answers 409',
    async (waiting) => {
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let started: () => void = () => undefined;
      const holding = new Promise<void>((resolve) => {
        started = resolve;
      });
      const runs: string[] = [];
      const receiver = createWebhookReceiver({
        authKeys: KEY,
        inbox: mysql2Inbox(pool, { table, lockTimeoutMs: 10_000 }),
        logger: {},
        onEvent: async () => {
          if (runs.length === 0) {
            runs.push('holder');
            started();
            await held;
            throw new Error('the first delivery fails after holding the key');
          }
          runs.push('waiter');
        },
      });
      const id = `sess_deadlock_${waiting}_${process.pid}`;
      const payload = { ...sampleStatusWebhook, sessionId: id, status: 'APPROVED' };
      const send = async () =>
        (await receiver.handle(createTestRequest({ payload, authKey: KEY, webhookId: `evt_${id}` }))).status;

      const first = send();
      await holding;
      const copies = Array.from({ length: waiting }, () => send());
      // Every copy is blocked on the key inside InnoDB before the holder rolls back.
      await pause(500);
      release();
      expect(await first).toBe(500);
      const answers = await Promise.all(copies);
      expect(answers).not.toContain(409);
      expect(answers).toEqual(Array.from({ length: waiting }, () => 200));
      expect(runs).toEqual(['holder', 'waiter']);
      const [rows] = await pool.query(`SELECT COUNT(*) AS n FROM ${table}`);
      expect(Number((rows as { n: number }[])[0]?.n)).toBeGreaterThanOrEqual(1);
    },
  );
});
