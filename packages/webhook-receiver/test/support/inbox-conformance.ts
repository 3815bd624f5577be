import { sampleStatusWebhook, sampleV1Webhook } from '@kyc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Inbox, type InboxDialect, type InboxOptions, migrateInbox, pruneInbox } from '../../src/inbox.js';
import {
  createWebhookReceiver,
  type KycWebhookEvent,
  type ReceiverLogger,
  type WebhookContext,
} from '../../src/index.js';
import { createTestRequest } from '../../src/testing.js';

/** One adapter over a real database: how to make its inbox and write through its transaction. */
export interface InboxHarness<Tx> {
  readonly dialect: InboxDialect;
  make(options: InboxOptions): Inbox<Tx>;
  /** Runs one statement (`?` placeholders) in the handler's transaction, through the library's own API. */
  exec(tx: Tx, sql: string, params: readonly unknown[]): Promise<void>;
  /** Reads through a separate connection (outside any delivery's transaction). */
  read(sql: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

const KEY = 'kyc_inbox_conformance_key_0123';
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let counter = 0;

type Handler<Tx> = (event: KycWebhookEvent, context: WebhookContext<Tx>) => unknown;

/** The suite every inbox adapter passes, against its real database. */
export function inboxConformanceSuite<Tx>(
  name: string,
  dialect: InboxDialect,
  open: () => Promise<InboxHarness<Tx>>,
): void {
  describe(`${name} inbox conformance`, () => {
    let harness: InboxHarness<Tx>;
    const table = `kyc_inbox_${name.replace(/\W/g, '_')}_${process.pid}`;
    const effects = `${table}_effects`;
    const inboxOf = (options: InboxOptions = {}) => harness.make({ table, ...options });

    beforeAll(async () => {
      harness = await open();
      await migrateInbox(inboxOf());
      await migrateInbox(inboxOf()); // again: changes nothing
      await harness.read(`DROP TABLE IF EXISTS ${effects}`);
      await harness.read(
        `CREATE TABLE ${effects} (event_key varchar(600) NOT NULL, session_id varchar(256) NOT NULL, status varchar(32))`,
      );
    });
    afterAll(async () => {
      for (const t of [effects, table, `${table}_sessions`]) await harness.read(`DROP TABLE IF EXISTS ${t}`);
      await harness.close();
    });

    /** A receiver whose handler writes one effect row through `context.tx`, then runs `extra`. */
    function receiverWith(extra: Handler<Tx> = () => undefined, options: InboxOptions = {}, more: object = {}) {
      const runs: { key: string; superseded: unknown; signal: AbortSignal }[] = [];
      const logs: string[] = [];
      const logger: ReceiverLogger = { error: (message) => logs.push(message), warn: (m) => logs.push(m) };
      const receiver = createWebhookReceiver({
        authKeys: KEY,
        inbox: inboxOf(options),
        logger,
        ...more,
        onEvent: async (event, context) => {
          runs.push({ key: event.idempotencyKey, superseded: context.supersededBy, signal: context.signal });
          await harness.exec(context.tx, `INSERT INTO ${effects} (event_key, session_id, status) VALUES (?, ?, ?)`, [
            event.idempotencyKey,
            event.sessionId,
            event.status ?? null,
          ]);
          await extra(event, context);
        },
      });
      const send = async (payload: object, webhookId = `evt_${name}_${counter++}`) => {
        const response = await receiver.handle(createTestRequest({ payload, authKey: KEY, webhookId }));
        return {
          status: response.status,
          body: await response.text(),
          retryAfter: response.headers.get('retry-after'),
        };
      };
      return { receiver, runs, logs, send };
    }
    const session = () => `sess_${name}_${counter++}_${process.pid}`;
    const status = (sessionId: string, verdict: string, timestamp = '2026-11-21T10:15:30.123Z') => ({
      ...sampleStatusWebhook,
      sessionId,
      status: verdict,
      timestamp,
    });
    const countOf = async (sql: string) => Number((await harness.read(sql))[0]?.n);
    const effectsOf = (sessionId: string) =>
      countOf(`SELECT count(*) AS n FROM ${effects} WHERE session_id = '${sessionId}'`);
    const keysOf = (sessionId: string) =>
      countOf(`SELECT count(*) AS n FROM ${table} WHERE session_id = '${sessionId}'`);

    it('runs a new event once, commits its effect with the key, and answers a duplicate without running it', async () => {
      const { runs, send } = receiverWith();
      const id = session();
      const first = await send(status(id, 'APPROVED'), `evt_${id}`);
      expect(first.status).toBe(200);
      const again = await send(status(id, 'APPROVED'), `evt_${id}`);
      expect(again).toMatchObject({ status: 200 });
      expect(JSON.parse(again.body)).toMatchObject({ duplicate: true });
      expect(runs).toHaveLength(1);
      expect(await effectsOf(id)).toBe(1);
      expect(await keysOf(id)).toBe(1);
    });

    it('makes concurrent copies of one event wait on its key: one run, every copy 200', async () => {
      const { runs, send } = receiverWith(() => pause(200));
      const id = session();
      const answers = await Promise.all(Array.from({ length: 8 }, () => send(status(id, 'APPROVED'), `evt_${id}`)));
      expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
      expect(runs).toHaveLength(1);
      expect(await effectsOf(id)).toBe(1);
    });

    it('answers 409 + Retry-After to a copy that waited past the lock timeout, and 200 once the first committed', async () => {
      const { runs, send } = receiverWith(() => pause(2500), { lockTimeoutMs: 1000 });
      const id = session();
      const first = send(status(id, 'APPROVED'), `evt_${id}`);
      await pause(300);
      const waited = await send(status(id, 'APPROVED'), `evt_${id}`);
      expect(waited.status).toBe(409);
      expect(Number(waited.retryAfter)).toBeGreaterThan(0);
      expect((await first).status).toBe(200);
      expect((await send(status(id, 'APPROVED'), `evt_${id}`)).status).toBe(200);
      expect(runs).toHaveLength(1);
      expect(await effectsOf(id)).toBe(1);
    });

    it('bounds the wait on a session held by another result of it: 409 past the lock timeout', async () => {
      const { runs, send } = receiverWith(() => pause(2500), { lockTimeoutMs: 1000 });
      const id = session();
      const first = send(status(id, 'PENDING', '2026-11-21T10:00:00.000Z'));
      await pause(300);
      const started = Date.now();
      const waited = await send(status(id, 'APPROVED', '2026-11-21T11:00:00.000Z'));
      expect(waited.status).toBe(409);
      expect(Date.now() - started).toBeLessThan(2000);
      expect((await first).status).toBe(200);
      expect(runs).toHaveLength(1);
      expect(await keysOf(id)).toBe(1);
    });

    it('rolls back the effect and the key when the handler throws (500); the retry starts clean', async () => {
      let fail = true;
      const { runs, send } = receiverWith(() => {
        if (fail) throw new Error('downstream refused');
      });
      const id = session();
      expect((await send(status(id, 'APPROVED'), `evt_${id}`)).status).toBe(500);
      expect(await effectsOf(id)).toBe(0);
      expect(await keysOf(id)).toBe(0);
      fail = false;
      expect((await send(status(id, 'APPROVED'), `evt_${id}`)).status).toBe(200);
      expect(runs).toHaveLength(2);
      expect(await effectsOf(id)).toBe(1);
    });

    it('answers 503 at the deadline and never commits a handler that finishes later', async () => {
      let slow = true;
      const { runs, send } = receiverWith(() => (slow ? pause(900) : undefined), {}, { handlerTimeoutMs: 300 });
      const id = session();
      const started = Date.now();
      const late = await send(status(id, 'APPROVED'), `evt_${id}`);
      expect(late.status).toBe(503);
      expect(Date.now() - started).toBeLessThan(850);
      expect(runs[0]?.signal.aborted).toBe(true);
      await pause(1200); // the handler has finished by now
      expect(await effectsOf(id)).toBe(0);
      expect(await keysOf(id)).toBe(0);
      slow = false;
      expect((await send(status(id, 'APPROVED'), `evt_${id}`)).status).toBe(200);
      expect(await effectsOf(id)).toBe(1);
    });

    it('acknowledges a late, older result without running it: a PENDING never undoes an APPROVED', async () => {
      const { runs, send } = receiverWith();
      const id = session();
      expect((await send(status(id, 'APPROVED', '2026-11-21T12:00:00.000Z'))).status).toBe(200);
      const stale = await send(status(id, 'PENDING', '2026-11-21T10:00:00.000Z'));
      expect(stale.status).toBe(200);
      expect(JSON.parse(stale.body)).toMatchObject({ stale: true });
      expect(runs).toHaveLength(1);
      expect(await harness.read(`SELECT status FROM ${effects} WHERE session_id = '${id}'`)).toEqual([
        { status: 'APPROVED' },
      ]);
      // A redelivery of the stale result is a plain duplicate; a newer result runs.
      expect((await send(status(id, 'REJECTED', '2026-11-21T13:00:00.000Z'))).status).toBe(200);
      expect(runs.map((r) => r.superseded)).toEqual([undefined, undefined]);
    });

    it("with staleResults: 'run', runs an older result and tells it what superseded it", async () => {
      const { runs, send } = receiverWith(() => undefined, { staleResults: 'run' });
      const id = session();
      await send(status(id, 'APPROVED', '2026-11-21T12:00:00.000Z'));
      expect((await send(status(id, 'PENDING', '2026-11-21T10:00:00.000Z'))).status).toBe(200);
      expect(runs[1]?.superseded).toEqual({ status: 'APPROVED', eventTime: new Date('2026-11-21T12:00:00.000Z') });
      // The newer result stays the session's newest: an event between the two is still stale.
      await send(status(id, 'ERROR', '2026-11-21T11:00:00.000Z'));
      expect(runs[2]?.superseded).toMatchObject({ status: 'APPROVED' });
    });

    it('orders v1 bodies by endedAt', async () => {
      const { runs, send } = receiverWith();
      const id = session();
      await send({ ...sampleV1Webhook, id, endedAt: '2026-11-21T12:00:00.000Z' });
      expect(
        JSON.parse((await send({ ...sampleV1Webhook, id, endedAt: '2026-11-21T09:00:00.000Z' })).body),
      ).toMatchObject({ stale: true });
      expect(runs).toHaveLength(1);
    });

    it('answers 503 and names the fix when the inbox table is missing', async () => {
      const logs: string[] = [];
      const receiver = createWebhookReceiver({
        authKeys: KEY,
        inbox: harness.make({ table: `${table}_absent` }),
        logger: { error: (_message, fields) => logs.push(String(fields?.errorMessage)) },
        onEvent: () => undefined,
      });
      const response = await receiver.handle(
        createTestRequest({ payload: status(session(), 'APPROVED'), authKey: KEY }),
      );
      expect(response.status).toBe(503);
      expect(logs.join('\n')).toMatch(new RegExp(`inbox table "${table}_absent".*missing: run migrateInbox`));
    });

    it('prunes keys and sessions older than the window, in batches, and keeps the rest', async () => {
      const old = Date.now() - 40 * 86_400_000;
      const { send } = receiverWith(() => undefined, {}, { now: () => old });
      const ids = [session(), session(), session()];
      for (const id of ids) await send(status(id, 'APPROVED'));
      const fresh = session();
      await receiverWith().send(status(fresh, 'APPROVED'));
      const pruned = await pruneInbox(inboxOf(), { batchSize: 2 });
      expect(pruned.keys).toBeGreaterThanOrEqual(3);
      for (const id of ids) expect(await keysOf(id)).toBe(0);
      expect(await keysOf(fresh)).toBe(1);
      expect(await countOf(`SELECT count(*) AS n FROM ${table}_sessions WHERE session_id = '${fresh}'`)).toBe(1);
    });

    if (dialect === 'postgres') {
      it('never answers 200 when a statement the handler caught aborted the transaction (Postgres)', async () => {
        const { send } = receiverWith(async (_event, context) => {
          await harness.exec(context.tx, 'SELECT * FROM no_such_table_here', []).catch(() => undefined);
        });
        const id = session();
        expect((await send(status(id, 'APPROVED'))).status).toBe(500);
        expect(await effectsOf(id)).toBe(0);
        expect(await keysOf(id)).toBe(0);
      });
    }
  });
}
