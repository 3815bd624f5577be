/**
 * One engine for the soak: enqueues at a steady rate and delivers, and every `sampleMs` prints
 * `sample <json>` with its RSS, live heap (after a full collection), active handles and open
 * file descriptors. Runs until SIGTERM, then stops the engine and prints `stopped`.
 */
import { readdirSync } from 'node:fs';
import { sampleStatusWebhook } from '@kyc/contracts';
import { createDeliveryEngine, type DeliveryStore, scaledClock, sqliteDeliveryStore } from '@kyc/delivery-engine';
import { postgresDeliveryStore } from '@kyc/delivery-engine/postgres';
import pg from 'pg';
import { CHAOS_SEALING_KEYS } from '../support/sealing-keys.js';

const config = JSON.parse(process.env.KYC_CHAOS ?? '{}') as {
  store: 'sqlite' | 'postgres';
  path?: string;
  postgresUrl?: string;
  ca: string;
  authKey: string;
  urls: { ok: string; slowFail: string };
  perSecond: number;
  sampleMs: number;
  factor: number;
  breakWith?: string;
};
// The broken build: keeps about 256 KiB of heap per enqueued event for ever (a cache nobody evicts).
const leaked: number[][] = [];
const say = (line: string) => process.stdout.write(`${line}\n`);
const pool = config.store === 'postgres' ? new pg.Pool({ connectionString: config.postgresUrl, max: 6 }) : undefined;
pool?.on('error', () => undefined);
const store: DeliveryStore<unknown> =
  pool === undefined
    ? sqliteDeliveryStore({ path: config.path ?? '' })
    : postgresDeliveryStore({ pool, sealingKeys: CHAOS_SEALING_KEYS });
const engine = createDeliveryEngine({
  store,
  allowPrivateNetworks: ['127.0.0.0/8'],
  tls: { ca: config.ca },
  clock: scaledClock(config.factor),
  leaseMs: 45_000 * Math.min(config.factor, 60),
  deadlineMs: 30_000,
  pollIntervalMs: 100 * config.factor,
  logger: { error: (message) => process.stderr.write(`engine: ${message}\n`) },
});
await engine.start();
let sent = 0;
let acked = 0;
const timer = setInterval(() => {
  const n = sent++;
  // Three in ten go to the endpoint that answers 500 after 1–3 s: a slowly failing customer.
  const url = n % 10 < 3 ? config.urls.slowFail : config.urls.ok;
  const id = `soak-${config.store}-${n}`;
  void engine
    .enqueue({ id, url, authKey: config.authKey, body: JSON.stringify({ ...sampleStatusWebhook, sessionId: id }) })
    .then(() => {
      acked++;
      if (config.breakWith === 'leak') leaked.push(Array.from({ length: 32 * 1024 }, (_, i) => i + acked));
    });
}, 1000 / config.perSecond);
const sample = setInterval(() => {
  (globalThis as { gc?: () => void }).gc?.();
  const memory = process.memoryUsage();
  say(
    `sample ${JSON.stringify({
      at: Date.now(),
      rss: memory.rss,
      heap: memory.heapUsed,
      handles: process.getActiveResourcesInfo().length,
      fds: readdirSync('/proc/self/fd').length,
      acked,
    })}`,
  );
}, config.sampleMs);
say('started');
process.once('SIGTERM', async () => {
  clearInterval(timer);
  clearInterval(sample);
  await engine.stop({ graceMs: 5000 });
  await store.close();
  await pool?.end();
  say(`stopped ${acked}`);
  process.exit(0);
});
