/**
 * The Postgres line of `pnpm bench`: 4 worker processes share one queue. Each worker first
 * delivers a warm-up batch (a worker runs for days: a fresh process would charge its JIT
 * compilation to the figure), then the timed batch is committed in one transaction and the
 * clock runs until the store has recorded every delivery. Beside deliveries/s: the CPU each
 * delivery cost the workers, Postgres (every server process, from /proc) and the receiver.
 */

import { createDeliveryEngine } from '@kyc/delivery-engine';
import { postgresDeliveryStore } from '@kyc/delivery-engine/postgres';
import { POSTGRES_URL, postgresCpuUs, processCpuUs } from '@kyc/test-support';
import pg from 'pg';
import { spawnWorker } from '../test/support/spawn-worker.js';
import type { BenchReceiver } from './receiver.js';
import { median, range } from './stats.js';

export interface PostgresRun {
  readonly rate: number;
  /** CPU µs per delivery. */
  readonly workers: number;
  readonly postgres: number;
  readonly receiver: number;
}

const WARM_UP = 2000;

async function untilReceived(receiver: BenchReceiver, target: number): Promise<void> {
  const giveUpAt = Date.now() + 120_000;
  while ((await receiver.count()) < target && Date.now() < giveUpAt) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function postgresRun(options: {
  readonly receiver: BenchReceiver;
  readonly ca: string;
  readonly body: string;
  readonly events: number;
  readonly workers: number;
  readonly concurrency: number;
}): Promise<PostgresRun> {
  const { receiver, events, body } = options;
  const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 4 });
  const schema = `kyc_de_bench_${process.pid}_${Date.now()}`;
  const store = postgresDeliveryStore({ pool, schema });
  const engine = createDeliveryEngine({ store, allowPrivateNetworks: ['127.0.0.0/8'], tls: { ca: options.ca } });
  const enqueueAll = async (count: number) => {
    const client = await pool.connect();
    await client.query('BEGIN');
    for (let i = 0; i < count; i++) await engine.enqueue({ url: receiver.url, body }, { transaction: client });
    // A queue table filled a second ago has no statistics: ANALYZE inside the transaction
    // samples its own inserts, so the claim walks the due index as it would in production.
    await client.query(`ANALYZE ${schema}.deliveries`);
    return client;
  };
  try {
    await store.migrate();
    const config = {
      store: 'postgres',
      postgresUrl: POSTGRES_URL,
      schema,
      ca: options.ca,
      concurrency: options.concurrency,
      leaseMs: 45_000,
      deadlineMs: 30_000,
      poolSize: 8,
      untilSignal: true,
    };
    const children = Array.from({ length: options.workers }, () => spawnWorker(config, { built: true }));
    await Promise.all(children.map((child) => child.started));
    const warm = await enqueueAll(WARM_UP);
    const beforeWarm = await receiver.count();
    await warm.query('COMMIT');
    warm.release();
    await untilReceived(receiver, beforeWarm + WARM_UP);

    const timed = await enqueueAll(events);
    const receivedBefore = await receiver.count();
    const pids = children.map((child) => child.child.pid ?? 0);
    const workerCpu = () => pids.reduce((sum, pid) => sum + processCpuUs(pid), 0);
    const [workersBefore, postgresBefore, receiverBefore] = [workerCpu(), postgresCpuUs(), await receiver.cpuUs()];
    const started = performance.now();
    await timed.query('COMMIT');
    timed.release();
    await untilReceived(receiver, receivedBefore + events);
    // Received is not recorded: the clock stops when the store has every result.
    const pending = async () =>
      Number(
        (await pool.query(`SELECT count(*)::int AS n FROM ${schema}.deliveries WHERE state = 'pending'`)).rows[0]?.n,
      );
    const giveUpAt = Date.now() + 60_000;
    while ((await pending()) > 0 && Date.now() < giveUpAt) await new Promise((resolve) => setTimeout(resolve, 10));
    const seconds = (performance.now() - started) / 1000;
    const run = {
      rate: events / seconds,
      workers: (workerCpu() - workersBefore) / events,
      postgres: (postgresCpuUs() - postgresBefore) / events,
      receiver: ((await receiver.cpuUs()) - receiverBefore) / events,
    };
    for (const child of children) child.child.kill('SIGTERM');
    await Promise.all(children.map((child) => child.exited));
    return run;
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pool.end();
  }
}

export function printPostgresRuns(label: string, runs: readonly PostgresRun[]): void {
  const pick = (key: keyof PostgresRun) => runs.map((run) => run[key]);
  const total = runs.map((run) => run.workers + run.postgres);
  const all = runs.map((run) => run.workers + run.postgres + run.receiver);
  console.log(
    `${label.padEnd(40)} ${median(pick('rate')).toFixed(0).padStart(6)}/s [${range(pick('rate'), 0)}] (issue 32: ≥ 5000/s)`,
  );
  console.log(
    `  CPU per delivery: workers ${median(pick('workers')).toFixed(0)} µs [${range(pick('workers'), 0)}], ` +
      `Postgres ${median(pick('postgres')).toFixed(0)} µs [${range(pick('postgres'), 0)}], ` +
      `receiver ${median(pick('receiver')).toFixed(0)} µs; workers + Postgres ${median(total).toFixed(0)} µs ` +
      `[${range(total, 0)}] (target ≤ 400 µs), with the receiver ${median(all).toFixed(0)} µs`,
  );
}
