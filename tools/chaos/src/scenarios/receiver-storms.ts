import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { HEADERS, sampleStatusWebhook } from '@kyc/contracts';
import { createWebhookReceiver, type IdempotencyStore, memoryIdempotencyStore } from '@kyc/webhook-receiver';
import { toNodeHandler } from '@kyc/webhook-receiver/node';
import { createIdempotencyTable, postgresIdempotencyStore } from '@kyc/webhook-receiver/postgres';
import { redisIdempotencyStore } from '@kyc/webhook-receiver/redis';
import { Redis } from 'ioredis';
import pg from 'pg';
import { Pool } from 'undici';
import { between } from '../support/between.js';
import { CHAOS_KEY } from '../support/chaos-receiver.js';
import { pause } from '../support/pause.js';
import { startPrivatePostgres } from '../support/private-postgres.js';
import { startPrivateRedis } from '../support/private-redis.js';
import { Invariants, type RunContext, type Scenario } from '../support/scenario.js';

const COPIES = 50;
// Claims orphaned by an outage (the handler ran, `complete` could not be written) hold for this
// long; short, so the redeliveries after the storm are not refused for the default 5 minutes.
const LEASE_MS = 2000;

interface Outage {
  readonly from: number;
  to: number;
}

interface StormResult {
  readonly figures: [string, string | number][];
}

/** One storm: `events` events, each sent `COPIES` times at once, while `outage()` takes the store down now and then. */
async function storm(
  name: string,
  store: IdempotencyStore,
  context: RunContext,
  invariants: Invariants,
  outages: { readonly count: number; readonly down: () => Promise<void>; readonly up: () => Promise<void> } | undefined,
): Promise<StormResult> {
  const events = context.mode === 'full' ? 1000 : 30;
  const runs = new Map<string, { start: number; end: number }[]>();
  const receiver = createWebhookReceiver({
    authKeys: CHAOS_KEY,
    idempotencyStore: store,
    idempotencyLeaseMs: LEASE_MS,
    logger: {},
    onEvent: async (_event, context) => {
      const id = context.webhookId ?? '';
      const run = { start: Date.now(), end: Number.POSITIVE_INFINITY };
      runs.set(id, [...(runs.get(id) ?? []), run]);
      // A handler that takes a moment, so the copies really overlap it.
      await pause(between(Math.random, 1, 15));
      run.end = Date.now();
    },
  });
  const server = createServer(toNodeHandler(receiver));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const client = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, {
    connections: 256,
    headersTimeout: 30_000,
  });
  const answers = new Map<string, { status: number; at: number }[]>();
  const statuses = new Map<number, number>();
  let slowest = 0;
  const send = async (id: string) => {
    const started = Date.now();
    try {
      const response = await client.request({
        path: '/',
        method: 'POST',
        headers: { authorization: `Bearer ${CHAOS_KEY}`, [HEADERS.webhookId]: id, 'content-type': 'application/json' },
        body: JSON.stringify({ ...sampleStatusWebhook, sessionId: id }),
      });
      const text = await response.body.text();
      const status = response.statusCode;
      slowest = Math.max(slowest, Date.now() - started);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      answers.set(id, [...(answers.get(id) ?? []), { status, at: Date.now() }]);
      invariants.check(
        [200, 409, 503].includes(status),
        `${name}: an answer other than 200/409/503`,
        () => `${id}: ${status} ${text.slice(0, 100)}`,
      );
      invariants.check(!text.includes(CHAOS_KEY.slice(0, 8)), `${name}: key material in an answer`, () => id);
      return status;
    } catch (error) {
      invariants.check(false, `${name}: a request failed or hung`, () => `${id}: ${String(error)}`);
      return 0;
    }
  };

  const outageLog: Outage[] = [];
  let storming = true;
  const chaos = (async () => {
    if (outages === undefined) return;
    for (let i = 0; i < outages.count && storming; i++) {
      await pause(between(context.random, 200, context.mode === 'full' ? 3000 : 800));
      if (!storming) break;
      const outage: Outage = { from: Date.now(), to: Number.POSITIVE_INFINITY };
      outageLog.push(outage);
      await outages.down();
      await pause(between(context.random, 200, 800));
      await outages.up();
      outage.to = Date.now();
    }
  })();
  const started = Date.now();
  const ids = Array.from({ length: events }, (_, i) => `storm-${name}-${i}`);
  for (let wave = 0; wave < ids.length; wave += 4) {
    await Promise.all(ids.slice(wave, wave + 4).flatMap((id) => Array.from({ length: COPIES }, () => send(id))));
    if (wave % 100 === 0 && wave > 0) context.progress(`storms/${name}: ${wave}/${events} events`);
  }
  storming = false;
  await chaos;
  const stormSeconds = (Date.now() - started) / 1000;

  // The sender's retries after the storm: each event is sent again until it gets its 200.
  let retries = 0;
  for (const id of ids) {
    for (let attempt = 0; attempt < 20; attempt++) {
      if ((answers.get(id) ?? []).some((a) => a.status === 200)) break;
      retries++;
      if ((await send(id)) !== 200) await pause(300);
    }
  }

  let excused = 0;
  for (const id of ids) {
    const list = runs.get(id) ?? [];
    const first = list[0];
    const overlapped = first !== undefined && outageLog.some((o) => o.from <= first.end + 100 && o.to >= first.start);
    if (list.length > 1 && overlapped) excused += list.length - 1;
    invariants.check(
      list.length <= 1 || overlapped,
      `${name}: the handler ran twice for one event although the store was up`,
      () => `${id}: ${list.length} runs`,
    );
    invariants.check(list.length >= 1, `${name}: an event never ran`, () => id);
    for (const answer of answers.get(id) ?? []) {
      if (answer.status !== 200) continue;
      invariants.check(
        list.some((run) => run.end <= answer.at),
        `${name}: 200 before any handler run had finished`,
        () => id,
      );
    }
    invariants.check(
      (answers.get(id) ?? []).some((a) => a.status === 200),
      `${name}: never answered 200`,
      () => id,
    );
  }
  await client.close();
  server.close();
  const totalRuns = [...runs.values()].reduce((sum, list) => sum + list.length, 0);
  return {
    figures: [
      [`${name}: events × copies`, `${events} × ${COPIES} = ${events * COPIES} concurrent-duplicate requests`],
      [`${name}: store outages during the storm`, outageLog.length],
      [
        `${name}: answers`,
        [...statuses]
          .sort((a, b) => a[0] - b[0])
          .map(([s, n]) => `${s}: ${n}`)
          .join(', '),
      ],
      [`${name}: slowest answer (ms)`, slowest],
      [`${name}: redeliveries after the storm until each had its 200`, retries],
      [`${name}: handler runs / events`, `${totalRuns} / ${events}`],
      [`${name}: second runs after the store died mid-handler (complete not recorded)`, excused],
      [`${name}: storm time (s)`, Math.round(stormSeconds * 10) / 10],
    ],
  };
}

/**
 * Processes `count` events once each, restarts the store's server, then delivers every event
 * again (as a redelivery after the restart would): returns how many handlers ran a second time.
 */
async function rerunsAfterRestart(store: IdempotencyStore, restart: () => Promise<void>, count: number) {
  const runs = new Map<string, number>();
  const receiver = createWebhookReceiver({
    authKeys: CHAOS_KEY,
    idempotencyStore: store,
    logger: {},
    onEvent: (_event, context) => {
      const id = context.webhookId ?? '';
      runs.set(id, (runs.get(id) ?? 0) + 1);
    },
  });
  const deliver = async (id: string) => {
    // The store may still be reconnecting after the restart: retry 503s, as the sender would.
    for (let attempt = 0; attempt < 100; attempt++) {
      const response = await receiver.handle(
        new Request('http://receiver.invalid/', {
          method: 'POST',
          headers: { authorization: `Bearer ${CHAOS_KEY}`, [HEADERS.webhookId]: id },
          body: JSON.stringify({ ...sampleStatusWebhook, sessionId: id }),
        }),
      );
      if (response.status === 200) return;
      await pause(100);
    }
    throw new Error(`no 200 for ${id} after the restart`);
  };
  const ids = Array.from({ length: count }, (_, i) => `remember-${Date.now()}-${i}`);
  for (const id of ids) await deliver(id);
  await restart();
  for (const id of ids) await deliver(id);
  return ids.filter((id) => (runs.get(id) ?? 0) > 1).length;
}

/**
 * The broken build: the dedupe many hand-written receivers do — look the key up, then write it,
 * with an await in between — instead of one atomic claim.
 */
function checkThenSetStore(): IdempotencyStore {
  const done = new Set<string>();
  return {
    async claim(key) {
      if (done.has(key)) return { outcome: 'completed' };
      await pause(1);
      done.add(key);
      return { outcome: 'claimed', token: key };
    },
    complete: async () => true,
    release: async (key) => {
      done.delete(key);
      return true;
    },
  };
}

export const receiverStorms: Scenario = {
  name: 'storms',
  title: 'Receiver under duplicate storms on each store, with Redis and Postgres restarted mid-storm',
  breaks: ['check-then-set'],
  async run(context: RunContext) {
    const invariants = new Invariants();
    const figures: [string, string | number][] = [];
    const restarts = context.mode === 'full' ? 8 : 2;
    const remembered = context.mode === 'full' ? 2000 : 100;
    const restartOf = (server: { crash(): Promise<void>; start(): Promise<void> }) => async () => {
      await server.crash();
      await server.start();
    };

    const memory = context.breakWith === 'check-then-set' ? checkThenSetStore() : memoryIdempotencyStore();
    figures.push(...(await storm('memory', memory, context, invariants, undefined)).figures);

    const redis = await startPrivateRedis(context.dir);
    // Fail fast while the server is down (no offline queue): the receiver answers 503 at once
    // instead of holding the request until a reconnect.
    const client = new Redis(redis.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false });
    client.on('error', () => undefined);
    try {
      const result = await storm('redis', redisIdempotencyStore(client), context, invariants, {
        count: restarts,
        down: () => redis.crash(),
        up: () => redis.start(),
      });
      figures.push(...result.figures);
      const reruns = await rerunsAfterRestart(redisIdempotencyStore(client), restartOf(redis), remembered);
      invariants.check(reruns === 0, 'redis: a restart forgot processed events', () => `${reruns} of ${remembered}`);
      figures.push([`redis: handlers run again after a restart, of ${remembered} processed events`, reruns]);
    } finally {
      client.disconnect();
      await redis.destroy();
    }

    // What an operator should know: the same restart of a Redis without an append-only file.
    const forgetful = await startPrivateRedis(join(context.dir, 'no-aof'), { persistence: 'none' });
    const forgetfulClient = new Redis(forgetful.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
    forgetfulClient.on('error', () => undefined);
    try {
      const reruns = await rerunsAfterRestart(redisIdempotencyStore(forgetfulClient), restartOf(forgetful), remembered);
      figures.push([`redis without appendonly: handlers run again after a restart, of ${remembered}`, reruns]);
    } finally {
      forgetfulClient.disconnect();
      await forgetful.destroy();
    }

    const postgres = await startPrivatePostgres(context.dir);
    const pool = new pg.Pool({ connectionString: postgres.url, max: 32, connectionTimeoutMillis: 2000 });
    pool.on('error', () => undefined);
    try {
      await createIdempotencyTable(pool);
      const result = await storm('postgres', postgresIdempotencyStore(pool), context, invariants, {
        count: restarts,
        down: async () => postgres.stopImmediate(),
        up: async () => postgres.start(),
      });
      figures.push(...result.figures);
      const reruns = await rerunsAfterRestart(
        postgresIdempotencyStore(pool),
        async () => {
          postgres.stopImmediate();
          postgres.start();
        },
        remembered,
      );
      invariants.check(reruns === 0, 'postgres: a restart forgot processed events', () => `${reruns} of ${remembered}`);
      figures.push([`postgres: handlers run again after an immediate stop and restart, of ${remembered}`, reruns]);
    } finally {
      await pool.end().catch(() => undefined);
      postgres.destroy();
    }
    return { figures, failures: invariants.failures };
  },
};
