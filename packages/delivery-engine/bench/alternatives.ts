/**
 * What a team would build instead of the engine in an afternoon, measured beside it in the same
 * run (issue 15): pg-boss + undici (a Postgres job queue) and BullMQ + undici (Redis). Every
 * sender does the same work: a durable job per event, one HTTPS POST of the same body to the
 * same receiver with 16 in flight, a retry when the answer is not 200.
 */
import { once } from 'node:events';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  HEADERS,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_RESPONSE_DEADLINE_MS,
  WEBHOOK_RETRY_DELAYS_MS,
  WEBHOOK_USER_AGENT,
} from '@kyc/contracts';
import { createDeliveryEngine, sqliteDeliveryStore } from '@kyc/delivery-engine';
import { postgresDeliveryStore } from '@kyc/delivery-engine/postgres';
import { POSTGRES_URL, REDIS_URL } from '@kyc/test-support';
import { Queue, Worker } from 'bullmq';
import pg from 'pg';
import { PgBoss } from 'pg-boss';
import { Agent, request } from 'undici';
import { median, percentile, range } from './stats.js';

export interface AlternativesOptions {
  /** The shared receiver (its own process): answers 200, counts requests. */
  readonly url: string;
  /** Requests the shared receiver has seen so far. */
  readonly received: () => Promise<number>;
  readonly tls: { readonly key: string; readonly cert: string };
  readonly body: string;
  /** A directory for SQLite files. */
  readonly dir: string;
  readonly events: number;
  readonly concurrency: number;
  readonly latencySamples: number;
  /** Rounds in which every sender takes its turn. */
  readonly rounds: number;
}

/** One sender: an enqueuing side and a delivering side (separate connections, as in production). */
interface Sender {
  enqueue(id: string, url: string): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

interface SenderContext {
  readonly options: AlternativesOptions;
  /** A name unique to this run (schema, queue). */
  readonly tag: string;
}

/** One POST the way a hand-built sender would send it: anything but 200 throws, so the queue retries. */
function poster(options: AlternativesOptions) {
  const agent = new Agent({ connect: { ca: options.tls.cert }, connections: options.concurrency });
  return {
    async post(url: string, id: string, body: string): Promise<void> {
      const response = await request(url, {
        method: 'POST',
        body,
        dispatcher: agent,
        headers: {
          [HEADERS.contentType]: 'application/json',
          [HEADERS.userAgent]: WEBHOOK_USER_AGENT,
          [HEADERS.webhookId]: id,
        },
        headersTimeout: 30_000,
        bodyTimeout: 30_000,
      });
      await response.body.dump();
      if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode}`);
    },
    close: () => agent.close(),
  };
}

const engineOptions = (options: AlternativesOptions) => ({
  allowPrivateNetworks: ['127.0.0.0/8'],
  tls: { ca: options.tls.cert },
  concurrency: options.concurrency,
  perEndpointConcurrency: options.concurrency,
});

async function oursSqlite({ options, tag }: SenderContext): Promise<Sender> {
  // One process owns a SQLite queue: the enqueuer is the engine itself.
  const store = sqliteDeliveryStore({ path: join(options.dir, `${tag}.db`) });
  const engine = createDeliveryEngine({ store, ...engineOptions(options) });
  return {
    enqueue: async (id, url) => void (await engine.enqueue({ id, url, body: options.body })),
    start: () => engine.start(),
    close: async () => {
      await engine.stop();
      await store.close();
    },
  };
}

async function oursPostgres({ options, tag }: SenderContext): Promise<Sender> {
  const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 10 });
  const store = postgresDeliveryStore({ pool, schema: tag });
  await store.migrate();
  const engine = createDeliveryEngine({ store, ...engineOptions(options) });
  // A second store object: only NOTIFY tells the worker about a new event.
  const enqueuerStore = postgresDeliveryStore({ pool, schema: tag });
  const enqueuer = createDeliveryEngine({ store: enqueuerStore, ...engineOptions(options) });
  return {
    enqueue: async (id, url) => void (await enqueuer.enqueue({ id, url, body: options.body })),
    start: () => engine.start(),
    close: async () => {
      await engine.stop();
      await store.close();
      await enqueuerStore.close();
      await pool.query(`DROP SCHEMA IF EXISTS ${tag} CASCADE`);
      await pool.end();
    },
  };
}

interface JobData {
  readonly id: string;
  readonly url: string;
  readonly body: string;
}

async function pgBoss({ options, tag }: SenderContext): Promise<Sender> {
  const connect = () => new PgBoss({ connectionString: POSTGRES_URL, schema: tag, useListenNotify: true });
  const producer = connect();
  producer.on('error', () => undefined);
  await producer.start();
  // The schedule closest to ours that pg-boss offers: 3 retries a minute apart, a 30 s job deadline.
  await producer.createQueue(tag, {
    retryLimit: WEBHOOK_MAX_ATTEMPTS - 1,
    retryDelay: WEBHOOK_RETRY_DELAYS_MS[0] / 1000,
    expireInSeconds: WEBHOOK_RESPONSE_DEADLINE_MS / 1000,
    notify: true,
  });
  const consumer = connect();
  consumer.on('error', () => undefined);
  const http = poster(options);
  // 16 in flight as 4 pollers × batches of 4, each job settled on its own; a full batch fetches
  // again at once, NOTIFY wakes an idle poller. pg-boss's fastest settings for this load.
  const batchSize = 4;
  return {
    enqueue: async (id, url) => void (await producer.send(tag, { id, url, body: options.body } satisfies JobData)),
    start: async () => {
      await consumer.start();
      await consumer.work<JobData>(
        tag,
        {
          batchSize,
          localConcurrency: options.concurrency / batchSize,
          burstWhenBatchFull: true,
          perJobResults: true,
          pollingIntervalSeconds: 0.5,
        },
        async (jobs) =>
          Promise.all(
            jobs.map(async (job) => {
              try {
                await http.post(job.data.url, job.data.id, job.data.body);
                return { id: job.id, status: 'completed' as const };
              } catch {
                return { id: job.id, status: 'failed' as const };
              }
            }),
          ),
      );
    },
    close: async () => {
      await consumer.stop({ graceful: false });
      await producer.stop({ graceful: false });
      await http.close();
      const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 1 });
      await pool.query(`DROP SCHEMA IF EXISTS ${tag} CASCADE`);
      await pool.end();
    },
  };
}

async function bullMq({ options, tag }: SenderContext): Promise<Sender> {
  const connection = { url: REDIS_URL, maxRetriesPerRequest: null };
  const queue = new Queue<JobData>(tag, { connection });
  const http = poster(options);
  let worker: Worker<JobData> | undefined;
  return {
    enqueue: async (id, url) =>
      void (await queue.add(
        'webhook',
        { id, url, body: options.body },
        { attempts: WEBHOOK_MAX_ATTEMPTS, backoff: WEBHOOK_RETRY_DELAYS_MS[0] },
      )),
    start: async () => {
      worker = new Worker<JobData>(tag, (job) => http.post(job.data.url, job.data.id, job.data.body), {
        connection,
        concurrency: options.concurrency,
      });
      worker.on('error', () => undefined);
      await worker.waitUntilReady();
    },
    close: async () => {
      await worker?.close(true);
      await queue.obliterate({ force: true });
      await queue.close();
      await http.close();
    },
  };
}

const SENDERS = {
  'engine, SQLite': oursSqlite,
  'engine, Postgres (1 process)': oursPostgres,
  'pg-boss + undici': pgBoss,
  'BullMQ + undici': bullMq,
} as const;
type SenderName = keyof typeof SENDERS;

/** Deliveries per second: `events` enqueued first, then the clock runs from start to the last one received. */
async function throughput(name: SenderName, options: AlternativesOptions, round: number): Promise<number> {
  const tag = `kyc_alt_tp_${process.pid}_${round}_${Object.keys(SENDERS).indexOf(name)}`;
  const sender = await SENDERS[name]({ options, tag });
  try {
    for (let i = 0; i < options.events; i++) await sender.enqueue(`tp-${i}`, options.url);
    const before = await options.received();
    const started = performance.now();
    await sender.start();
    let received = 0;
    const giveUpAt = Date.now() + 120_000;
    while (received < options.events && Date.now() < giveUpAt) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      received = (await options.received()) - before;
    }
    return received / ((performance.now() - started) / 1000);
  } finally {
    await sender.close();
  }
}

/** Enqueue → received, one event at a time, with the receiver in this process so both ends share a clock. */
async function latency(
  name: SenderName,
  options: AlternativesOptions,
  round: number,
): Promise<{ p50: number; p99: number }> {
  const enqueuedAt = new Map<string, number>();
  const samples: number[] = [];
  const server = createServer({ key: options.tls.key, cert: options.tls.cert }, (req, res) => {
    const sent = enqueuedAt.get(String(req.headers[HEADERS.webhookId]));
    if (sent !== undefined) samples.push(performance.now() - sent);
    req.resume();
    res.end('ok');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const tag = `kyc_alt_lat_${process.pid}_${round}_${Object.keys(SENDERS).indexOf(name)}`;
  const sender = await SENDERS[name]({ options, tag });
  try {
    await sender.start();
    for (let i = 0; i < options.latencySamples; i++) {
      const id = `lat-${i}`;
      enqueuedAt.set(id, performance.now());
      await sender.enqueue(id, url);
      // An event not received within 2 s counts as 2 s.
      const deadline = performance.now() + 2000;
      while (samples.length <= i && performance.now() < deadline) await new Promise((r) => setTimeout(r, 1));
      if (samples.length <= i) samples.push(2000);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    await sender.close();
    server.closeAllConnections();
    server.close();
  }
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

interface Figures {
  readonly rate: number;
  readonly p50: number;
  readonly p99: number;
}

/**
 * Prints deliveries/s and idle enqueue→received of the engine beside pg-boss and BullMQ, as
 * ratios. The senders take turns over `rounds` rounds (a neighbour's burst on a shared machine
 * then hits every sender alike); each figure is the median of the rounds, with their range, and
 * each ratio is the median of the per-round ratios, with their spread.
 */
export async function compareAlternatives(options: AlternativesOptions): Promise<void> {
  console.log(
    `\n## The engine beside what a team would build instead (${options.events} events, ${options.concurrency} in flight, ` +
      `same receiver and body; latency: ${options.latencySamples} events one at a time; ${options.rounds} interleaved rounds, ` +
      'median and [range])',
  );
  const names = Object.keys(SENDERS) as SenderName[];
  const rounds: Map<SenderName, Figures>[] = [];
  for (let round = 0; round < options.rounds; round++) {
    const results = new Map<SenderName, Figures>();
    for (const name of names) {
      const rate = await throughput(name, options, round);
      const { p50, p99 } = await latency(name, options, round);
      results.set(name, { rate, p50, p99 });
    }
    rounds.push(results);
  }
  const all = (name: SenderName, key: keyof Figures) => rounds.map((round) => round.get(name)?.[key] ?? Number.NaN);
  for (const name of names) {
    const [rate, p50, p99] = [all(name, 'rate'), all(name, 'p50'), all(name, 'p99')];
    console.log(
      `${name.padEnd(30)} ${median(rate).toFixed(0).padStart(6)} deliveries/s [${range(rate, 0)}]   ` +
        `enqueue→received p50 ${median(p50).toFixed(2)} ms [${range(p50, 2)}], p99 ${median(p99).toFixed(2)} ms [${range(p99, 2)}]`,
    );
  }
  const ratio = (ours: SenderName, theirs: SenderName) => {
    const faster = rounds.map(
      (round) => (round.get(ours)?.rate ?? Number.NaN) / (round.get(theirs)?.rate ?? Number.NaN),
    );
    const lower = rounds.map((round) => (round.get(theirs)?.p99 ?? Number.NaN) / (round.get(ours)?.p99 ?? Number.NaN));
    const ahead = rounds.filter((_, index) => (faster[index] ?? 0) > 1 && (lower[index] ?? 0) > 1).length;
    const verdict = median(faster) > 1 && median(lower) > 1 ? 'met' : 'NOT met';
    console.log(
      `→ ${ours} vs ${theirs}: ${median(faster).toFixed(2)}× the deliveries/s [${range(faster, 2)}], ` +
        `p99 ${median(lower).toFixed(2)}× lower [${range(lower, 2)}] ` +
        `(target: ahead on both: ${verdict} by the medians; ahead on both in ${ahead} of ${rounds.length} rounds)`,
    );
  };
  ratio('engine, Postgres (1 process)', 'pg-boss + undici');
  ratio('engine, SQLite', 'BullMQ + undici');
  ratio('engine, Postgres (1 process)', 'BullMQ + undici');
}
