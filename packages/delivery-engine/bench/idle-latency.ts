import { once } from 'node:events';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { HEADERS } from '@kyc/contracts';
import { createDeliveryEngine, sqliteDeliveryStore } from '@kyc/delivery-engine';
import { postgresDeliveryStore } from '@kyc/delivery-engine/postgres';
import { POSTGRES_URL } from '@kyc/test-support';
import pg from 'pg';
import { percentile } from './stats.js';

export interface IdleLatency {
  /** From `enqueue()` resolving to the receiver's handler, ms. */
  readonly p50: number;
  readonly p99: number;
  /** From calling `enqueue()` (the durable write included) to the handler, ms. */
  readonly fromCallP50: number;
  readonly received: number;
}

/**
 * Events enqueued one at a time on an idle engine, each received before the next: how long from
 * `enqueue()` resolving (the event is durable) to the receiver's handler, with the receiver in
 * this process so both ends share one clock. With Postgres the event is enqueued through a
 * second store object, so only `LISTEN/NOTIFY` can wake the worker.
 */
export async function idleLatency(options: {
  readonly kind: 'sqlite' | 'postgres';
  readonly tls: { key: string; cert: string };
  readonly body: string;
  readonly dir: string;
  readonly samples: number;
}): Promise<IdleLatency> {
  const resolvedAt = new Map<string, number>();
  const calledAt = new Map<string, number>();
  const fromResolved: number[] = [];
  const fromCall: number[] = [];
  const server = createServer({ key: options.tls.key, cert: options.tls.cert }, (req, res) => {
    const now = performance.now();
    const id = String(req.headers[HEADERS.webhookId]);
    const called = calledAt.get(id);
    if (called !== undefined) fromCall.push(now - called);
    // The request can arrive before the enqueue's own continuation runs: then it took no time.
    fromResolved.push(Math.max(0, now - (resolvedAt.get(id) ?? now)));
    req.resume();
    res.end('ok');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const loopback = { allowPrivateNetworks: ['127.0.0.0/8'], tls: { ca: options.tls.cert } };
  const pool = options.kind === 'postgres' ? new pg.Pool({ connectionString: POSTGRES_URL, max: 4 }) : undefined;
  const schema = `kyc_de_latency_${process.pid}`;
  const store =
    pool === undefined
      ? sqliteDeliveryStore({ path: join(options.dir, 'latency.db') })
      : postgresDeliveryStore({ pool, schema });
  const worker = createDeliveryEngine({ store, ...loopback });
  const enqueuer =
    pool === undefined ? worker : createDeliveryEngine({ store: postgresDeliveryStore({ pool, schema }), ...loopback });
  await worker.start();
  for (let i = 0; i < options.samples; i++) {
    const id = `lat-${options.kind}-${i}`;
    calledAt.set(id, performance.now());
    await enqueuer.enqueue({ id, url, body: options.body });
    resolvedAt.set(id, performance.now());
    const deadline = Date.now() + 2000;
    while (fromCall.length <= i && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 1));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await worker.stop();
  await store.close();
  if (pool !== undefined) {
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pool.end();
  }
  server.closeAllConnections();
  server.close();
  const sorted = [...fromResolved].sort((a, b) => a - b);
  // A sample that never arrived (2 s) is reported as a count, not hidden in the percentiles.
  return {
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    fromCallP50: percentile(
      [...fromCall].sort((a, b) => a - b),
      50,
    ),
    received: sorted.length,
  };
}
