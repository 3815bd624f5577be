/**
 * One delivery engine in its own process, for the kill scenarios. Configured by `KYC_CHAOS`
 * (JSON). Prints `opening` before it opens the store (which migrates a new file), `started`
 * once claiming, `ack <id>` each time an `enqueue` resolved and `refused <id> <code>` when one failed,
 * `refused <code>` (exit 3) when the store refused it at start. Without an enqueue load it
 * exits 0 once nothing is pending. The parent kills it with SIGKILL at random moments.
 */
import { sampleStatusWebhook } from '@kyc/contracts';
import { createDeliveryEngine, type DeliveryStore, scaledClock, sqliteDeliveryStore } from '@kyc/delivery-engine';
import { postgresDeliveryStore } from '@kyc/delivery-engine/postgres';
import pg from 'pg';
import { CHAOS_SEALING_KEYS } from '../support/sealing-keys.js';
import {
  busyTimers,
  freezeOnSignal,
  lagMonitor,
  steppableClock,
  tamperOnSignal,
  tryForeignCopy,
} from './host-faults.js';

interface WorkerConfig {
  readonly store: 'sqlite' | 'postgres';
  readonly path?: string;
  readonly postgresUrl?: string;
  readonly ca: string;
  readonly concurrency: number;
  readonly leaseMs: number;
  readonly deadlineMs: number;
  readonly maxWorkerLosses: number;
  readonly timeScale: { readonly factor: number; readonly anchor: number };
  readonly authKey: string;
  /** Where events go; every `failEvery`-th to `failUrl` (always 500). */
  readonly url: string;
  readonly failUrl: string;
  /** A steady enqueue load while the engine delivers. */
  readonly enqueue?: { readonly prefix: string; readonly intervalMs: number; readonly failEvery: number };
  /** Answer every lookup with this loopback address, so the receiver can tell this worker's requests apart. */
  readonly resolveTo?: string;
  /** The broken build to run: `ack-early` prints `ack` before the event is stored. */
  readonly breakWith?: string;
  /** Exit 0 once nothing is pending (the drain after the last kill). */
  readonly drain?: boolean;
  readonly maxLifeMs: number;
  /** Steps of the engine's wall clock (ms), one per SIGUSR2. */
  readonly clockSteps?: readonly number[];
  /** On SIGUSR1, read the lock file or copy the data folder from inside this process. */
  readonly tamper?: 'read' | 'copy';
  /** Print the event-loop lag before exiting. */
  readonly reportLag?: boolean;
  /** A bundled second copy of the engine package that tries to own the same file once started. */
  readonly foreignCopy?: string;
  /** On SIGUSR1, block the event loop this long (ms). */
  readonly freezeMs?: number;
  /** Spin `spinMs` in a timer every `everyMs`: a busy event loop. */
  readonly busy?: { readonly everyMs: number; readonly spinMs: number };
  /** Exit 0 once this many events were enqueued and nothing is pending. */
  readonly enqueueCount?: number;
}

const config = JSON.parse(process.env.KYC_CHAOS ?? '{}') as WorkerConfig;
const say = (line: string) => process.stdout.write(`${line}\n`);

say('opening');
const pool = config.store === 'postgres' ? new pg.Pool({ connectionString: config.postgresUrl, max: 6 }) : undefined;
// A dead database server makes idle pooled clients emit 'error'; the engine's own queries see
// the failure and retry, so here it is only reported (unhandled, it would end the process).
pool?.on('error', () => undefined);
const store: DeliveryStore<unknown> =
  pool === undefined
    ? sqliteDeliveryStore({ path: config.path ?? '' })
    : postgresDeliveryStore({ pool, sealingKeys: CHAOS_SEALING_KEYS });
const factor = config.timeScale.factor;
const reportLag = config.reportLag ? lagMonitor(say) : undefined;
if (config.busy !== undefined) busyTimers(config.busy.everyMs, config.busy.spinMs);
if (config.freezeMs !== undefined) freezeOnSignal(config.freezeMs, say);
if (config.tamper !== undefined) tamperOnSignal(config.path ?? '', config.tamper, say);
const baseClock = scaledClock(factor, { anchor: config.timeScale.anchor });
const engine = createDeliveryEngine({
  store,
  allowPrivateNetworks: ['127.0.0.0/8'],
  tls: { ca: config.ca },
  clock: config.clockSteps === undefined ? baseClock : steppableClock(baseClock, config.clockSteps, say),
  ...(config.resolveTo !== undefined && {
    resolver: { resolve: async () => [{ address: config.resolveTo ?? '', family: 4 as const }] },
  }),
  concurrency: config.concurrency,
  perEndpointConcurrency: config.concurrency,
  leaseMs: config.leaseMs,
  deadlineMs: config.deadlineMs,
  maxWorkerLosses: config.maxWorkerLosses,
  // In engine time: a scaled clock polls as often in wall time as an unscaled one.
  pollIntervalMs: 100 * factor,
  logger: {
    error: (message) => process.stderr.write(`engine: ${message}\n`),
    warn: (message) => process.stderr.write(`engine warn: ${message}\n`),
  },
});
try {
  await engine.start();
} catch (error) {
  // Another process owns the file: the owner-lock scenario counts this answer.
  say(`refused ${String((error as { code?: unknown }).code)}`);
  process.exit(3);
}
say('started');
const foreign =
  config.foreignCopy === undefined ? undefined : await tryForeignCopy(config.foreignCopy, config.path ?? '', say);

const load = config.enqueue;
let sent = 0;
const enqueueOne = async () => {
  if (load === undefined || (config.enqueueCount !== undefined && sent >= config.enqueueCount)) return;
  const n = sent++;
  const id = `${load.prefix}-${n}`;
  const url = n % load.failEvery === load.failEvery - 1 ? config.failUrl : config.url;
  const body = JSON.stringify({ ...sampleStatusWebhook, sessionId: id });
  if (config.breakWith === 'ack-early') {
    // The broken build: acknowledges before the write is durable.
    say(`ack ${id}`);
    setTimeout(() => void engine.enqueue({ id, url, authKey: config.authKey, body }).catch(() => undefined), 50);
    return;
  }
  try {
    await engine.enqueue({ id, url, authKey: config.authKey, body });
    say(`ack ${id}`);
  } catch (error) {
    // A refused enqueue (the disk is full, the database is gone) must be a typed error that
    // names no secret: report its code and whether the message held the key.
    const code = (error as { code?: unknown }).code;
    const leaked = String((error as Error).message).includes(config.authKey);
    say(`refused ${id} ${String(code)} ${leaked ? 'key-in-message' : 'clean'}`);
  }
};
const timer = load === undefined ? undefined : setInterval(() => void enqueueOne(), load.intervalMs);

const giveUpAt = Date.now() + config.maxLifeMs;
while (Date.now() < giveUpAt) {
  await new Promise((resolve) => setTimeout(resolve, 50));
  const drains = config.drain || (config.enqueueCount !== undefined && sent >= config.enqueueCount);
  if (!drains) continue;
  if ((await engine.listDeliveries({ state: 'pending', limit: 1 })).length === 0) break;
}
clearInterval(timer);
reportLag?.();
await engine.stop({ graceMs: 1000 });
await store.close();
await foreign?.close();
await pool?.end();
process.exit(0);
