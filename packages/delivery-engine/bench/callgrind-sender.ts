/**
 * The sending process of `bench/callgrind-run.ts`, run under valgrind. It sends `warmup +
 * events` deliveries over one set of connections (no TLS handshake falls in the count) and, when
 * the warm-up is done and again after `events` more, blocks until the parent has switched
 * instruction counting on or dumped it. KYC_CALLGRIND: { sender, url, ca, body, events, warmup, dir }.
 */
import { readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { HEADERS, WEBHOOK_USER_AGENT } from '@kyc/contracts';
import { createDeliveryEngine } from '@kyc/delivery-engine';
import { postgresDeliveryStore } from '@kyc/delivery-engine/postgres';
import pg from 'pg';
import { Agent, request } from 'undici';
import { deliveryCounter } from './delivery-counter.js';
import { sqliteThroughput } from './sqlite-throughput.js';

interface Config {
  readonly sender: 'engine' | 'postgres' | 'request' | 'dispatch';
  readonly url: string;
  readonly ca: string;
  readonly body: string;
  readonly events: number;
  readonly warmup: number;
  readonly dir: string;
}
const config = JSON.parse(process.env.KYC_CALLGRIND ?? '{}') as Config;
const CONCURRENCY = 16;
const total = config.warmup + config.events;

/**
 * Tells the parent `what` and waits, synchronously, for its answer: nothing of this process runs
 * meanwhile, so the count starts and ends exactly at a delivery.
 */
function pause(what: string): void {
  writeSync(1, `${what}\n`);
  readSync(0, Buffer.alloc(1));
}

function reached(count: number): void {
  if (count === config.warmup) pause('measure');
  if (count === total) pause('measured');
}

/** Every POST over CONCURRENCY loops, with undici `request` or `dispatch` and nothing else. */
async function bareLoops(kind: 'request' | 'dispatch'): Promise<void> {
  const agent = new Agent({ connect: { ca: config.ca }, connections: CONCURRENCY });
  const headers = { [HEADERS.contentType]: 'application/json', [HEADERS.userAgent]: WEBHOOK_USER_AGENT };
  const { origin, pathname } = new URL(config.url);
  const post =
    kind === 'request'
      ? async () => {
          const response = await request(config.url, { method: 'POST', headers, body: config.body, dispatcher: agent });
          await response.body.dump();
        }
      : () =>
          new Promise<void>((resolve, reject) => {
            agent.dispatch(
              { origin, path: pathname, method: 'POST', headers, body: config.body },
              {
                onRequestStart: () => undefined,
                onResponseStart: () => undefined,
                onResponseData: () => undefined,
                onResponseEnd: () => resolve(),
                onResponseError: (_controller, error) => reject(error),
              },
            );
          });
  let sent = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (sent < total) {
        sent++;
        await post();
        reached(++done);
      }
    }),
  );
  await agent.close();
}

/**
 * One worker of the bench's Postgres line (16 in flight, a pool of 8) over a fresh schema, its
 * deliveries enqueued in one transaction before it starts.
 */
async function postgresWorker(): Promise<void> {
  const pool = new pg.Pool({
    connectionString: process.env.KYC_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    max: 8,
  });
  const schema = `kyc_de_callgrind_${process.pid}`;
  const store = postgresDeliveryStore({ pool, schema });
  const counter = deliveryCounter(total, reached);
  const engine = createDeliveryEngine({
    store,
    allowPrivateNetworks: ['127.0.0.0/8'],
    tls: { ca: config.ca },
    concurrency: CONCURRENCY,
    perEndpointConcurrency: CONCURRENCY,
    leaseMs: 45_000,
    deadlineMs: 30_000,
    onAttempt: counter.onAttempt,
  });
  try {
    await store.migrate();
    const client = await pool.connect();
    await client.query('BEGIN');
    for (let i = 0; i < total; i++)
      await engine.enqueue({ url: config.url, body: config.body }, { transaction: client });
    await client.query(`ANALYZE ${schema}.deliveries`);
    await client.query('COMMIT');
    client.release();
    await engine.start();
    await counter.finished;
    await engine.stop();
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pool.end();
  }
}

if (config.sender === 'postgres') {
  await postgresWorker();
} else if (config.sender === 'engine') {
  await sqliteThroughput({
    url: config.url,
    ca: config.ca,
    body: config.body,
    concurrency: CONCURRENCY,
    path: join(config.dir, 'run.db'),
    events: total,
    onDelivered: reached,
  });
} else {
  await bareLoops(config.sender);
}
writeSync(1, 'exit\n');
process.exit(0);
