/**
 * A delivery engine in its own process, for the crash and multi-worker suites. Configured by
 * the KYC_WORKER environment variable (JSON); prints "started" once claiming, exits 0 when no
 * delivery is pending any more (and `expectFinished` exist). The parent kills it with SIGKILL at random moments.
 */

import { createDeliveryEngine, type DeliveryStore, scaledClock, sqliteDeliveryStore } from '@kyc/delivery-engine';
import { postgresDeliveryStore } from '@kyc/delivery-engine/postgres';
import pg from 'pg';
import { TEST_SEALING_KEYS } from '../support/sealing-keys.js';

interface WorkerConfig {
  readonly store: 'sqlite' | 'postgres';
  readonly path?: string;
  readonly postgresUrl?: string;
  readonly schema?: string;
  readonly ca: string;
  readonly concurrency: number;
  readonly leaseMs: number;
  readonly deadlineMs: number;
  readonly maxWorkerLosses?: number;
  /** Do not exit before this many deliveries (≤ 1000) are finished: events may be enqueued after start. */
  readonly expectFinished?: number;
  /** Run until SIGTERM (at most a minute) without polling the store: the bench measures this process's CPU. */
  readonly untilSignal?: boolean;
  /** Connections of this worker's pool (Postgres; default 4). */
  readonly poolSize?: number;
  /** Answer every lookup with this address, so the receiver can tell this worker's requests apart. */
  readonly resolveTo?: string;
  /**
   * Run the engine's clock this many times faster than the wall clock, from `anchor` (epoch ms,
   * the same in every worker so they agree on the time), so the 21-minute schedule fits a test.
   */
  readonly timeScale?: { readonly factor: number; readonly anchor: number };
}

const config = JSON.parse(process.env.KYC_WORKER ?? '{}') as WorkerConfig;
const pool =
  config.store === 'postgres'
    ? new pg.Pool({ connectionString: config.postgresUrl, max: config.poolSize ?? 4 })
    : undefined;
const store: DeliveryStore<unknown> =
  pool === undefined
    ? sqliteDeliveryStore({ path: config.path ?? '' })
    : postgresDeliveryStore({
        pool,
        sealingKeys: TEST_SEALING_KEYS,
        ...(config.schema !== undefined && { schema: config.schema }),
      });

const engine = createDeliveryEngine({
  store,
  allowPrivateNetworks: ['127.0.0.0/8'],
  tls: { ca: config.ca },
  ...(config.timeScale !== undefined && {
    clock: scaledClock(config.timeScale.factor, { anchor: config.timeScale.anchor }),
  }),
  ...(config.resolveTo !== undefined && {
    resolver: { resolve: async () => [{ address: config.resolveTo ?? '', family: 4 as const }] },
  }),
  concurrency: config.concurrency,
  perEndpointConcurrency: config.concurrency,
  leaseMs: config.leaseMs,
  deadlineMs: config.deadlineMs,
  ...(config.maxWorkerLosses !== undefined && { maxWorkerLosses: config.maxWorkerLosses }),
  // In engine time: a scaled clock polls as often in wall time as an unscaled one.
  pollIntervalMs: 100 * (config.timeScale?.factor ?? 1),
  logger: { error: (message, fields) => console.error(message, fields) },
});

try {
  await engine.start();
} catch (error) {
  // A refused start (another process owns the file) is an answer the parent checks.
  process.stdout.write(`refused ${(error as { code?: string }).code}: ${(error as Error).message}\n`);
  process.exit(3);
}
process.stdout.write('started\n');
// Bounded: a worker never outlives a minute even if the parent forgets it.
const giveUpAt = Date.now() + 60_000;
if (config.untilSignal) {
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', () => resolve());
    setTimeout(resolve, 60_000).unref();
  });
}
while (!config.untilSignal && Date.now() < giveUpAt) {
  await new Promise((resolve) => setTimeout(resolve, 100));
  if ((await engine.listDeliveries({ state: 'pending', limit: 1 })).length > 0) continue;
  const finished = await engine.listDeliveries({ limit: Math.max(1, config.expectFinished ?? 1) });
  if (finished.length >= (config.expectFinished ?? 1)) break;
}
await engine.stop();
await store.close();
await pool?.end();
process.exit(0);
