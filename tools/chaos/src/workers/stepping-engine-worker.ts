/**
 * One Postgres delivery engine whose clock steps while it works: the wall clock of a host that
 * NTP corrected or that resumed from a pause. Its engine clock is the suite's scaled clock plus
 * the steps `KYC_CHAOS` lists (`{ atMs, byMs }`, wall milliseconds after start, engine
 * milliseconds). Prints `started`, then `stepped <byMs>` at each step. Killed by the parent.
 */
import { type Clock, createDeliveryEngine, scaledClock } from '@kyc/delivery-engine';
import { postgresDeliveryStore } from '@kyc/delivery-engine/postgres';
import pg from 'pg';
import { CHAOS_SEALING_KEYS } from '../support/sealing-keys.js';

interface Config {
  readonly postgresUrl: string;
  readonly ca: string;
  readonly resolveTo: string;
  readonly authKey: string;
  readonly timeScale: { readonly factor: number; readonly anchor: number };
  readonly leaseMs: number;
  readonly deadlineMs: number;
  readonly steps: readonly { readonly atMs: number; readonly byMs: number }[];
}

const config = JSON.parse(process.env.KYC_CHAOS ?? '{}') as Config;
const say = (line: string) => process.stdout.write(`${line}\n`);
const pool = new pg.Pool({ connectionString: config.postgresUrl, max: 6 });
pool.on('error', () => undefined);
const scaled = scaledClock(config.timeScale.factor, { anchor: config.timeScale.anchor });
let offset = 0;
// Only the reading steps: sleeps and the monotonic reading run on as before, as on a real host.
const clock: Clock = { ...scaled, now: () => scaled.now() + offset };
const engine = createDeliveryEngine({
  store: postgresDeliveryStore({ pool, sealingKeys: CHAOS_SEALING_KEYS }),
  allowPrivateNetworks: ['127.0.0.0/8'],
  tls: { ca: config.ca },
  clock,
  resolver: { resolve: async () => [{ address: config.resolveTo, family: 4 as const }] },
  concurrency: 16,
  perEndpointConcurrency: 16,
  leaseMs: config.leaseMs,
  deadlineMs: config.deadlineMs,
  pollIntervalMs: 100 * config.timeScale.factor,
  logger: { error: (message) => process.stderr.write(`engine: ${message}\n`) },
});
await engine.start();
say('started');
for (const step of config.steps) {
  setTimeout(() => {
    offset += step.byMs;
    say(`stepped ${step.byMs}`);
  }, step.atMs);
}
