/**
 * A delivery engine at its default options for the isolation scenarios, in its own process.
 * With `load`, it also enqueues (the SQLite owner must; on Postgres the first worker does): with
 * `warmUp`, one event to every host first (`w-<host>`, between `M cold …` and `M warm …`, then
 * `warmed` once all are delivered); from SIGUSR2 on, events spread evenly over the hosts at
 * `ratePerSec` for `controlMs + faultMs`, each printed as `E <id> <ack ms>` once `enqueue`
 * resolved, and a flood of `count` events to one host `atMs` into it
 * (`F <count> <first ack> <last ack>`). At each phase's end it prints
 * `M <phase> <rss> <fds> <heap> <cpu µs> <prompt in flight> <slow in flight> <slow origins>`; on
 * SIGTERM it stops the engine, prints `M end …` and exits 0.
 */
import { readdirSync } from 'node:fs';
import { sampleStatusWebhook } from '@kyc/contracts';
import { createDeliveryEngine, type DeliveryStore, sqliteDeliveryStore } from '@kyc/delivery-engine';
import { postgresDeliveryStore } from '@kyc/delivery-engine/postgres';
import pg from 'pg';

export interface IsolationEngineConfig {
  readonly store: 'sqlite' | 'postgres';
  readonly path?: string;
  readonly postgresUrl?: string;
  readonly schema?: string;
  readonly ca: string;
  readonly port: number;
  readonly load?: {
    readonly ratePerSec: number;
    /** Host names (before `.isolation.test`), in the order events go round them. */
    readonly hosts: readonly string[];
    readonly flood?: { readonly atMs: number; readonly count: number; readonly host: string };
    /** One event to every host at once, before `startAt`: their connections are warm when the load begins. */
    readonly warmUp?: boolean;
  };
  readonly controlMs: number;
  readonly faultMs: number;
}

const config = JSON.parse(process.env.KYC_CHAOS ?? '{}') as IsolationEngineConfig;
const say = (line: string) => process.stdout.write(`${line}\n`);
const pool = config.store === 'postgres' ? new pg.Pool({ connectionString: config.postgresUrl, max: 8 }) : undefined;
pool?.on('error', () => undefined);
const store: DeliveryStore<unknown> =
  pool === undefined
    ? sqliteDeliveryStore({ path: config.path ?? '' })
    : postgresDeliveryStore({ pool, ...(config.schema !== undefined && { schema: config.schema }) });
// Every option that decides isolation at its default: concurrency, slow lane, cap, deadline.
const engine = createDeliveryEngine({
  store,
  allowPrivateNetworks: ['127.0.0.0/8'],
  tls: { ca: config.ca },
  resolver: { resolve: async () => [{ address: '127.0.0.1', family: 4 as const }] },
  logger: { error: (message) => process.stderr.write(`engine: ${message}\n`) },
});
await engine.start();
say('started');

const urlOf = (host: string) => `https://${host}.isolation.test:${config.port}/hook`;
const body = (id: string) => JSON.stringify({ ...sampleStatusWebhook, sessionId: id });
const acks: string[] = [];
const flush = () => {
  if (acks.length > 0) say(acks.splice(0).join('\n'));
};
setInterval(flush, 20);

async function enqueue(host: string, id: string): Promise<void> {
  try {
    await engine.enqueue({ id, url: urlOf(host), body: body(id) });
    acks.push(`E ${id} ${Date.now()}`);
  } catch (error) {
    process.stderr.write(`enqueue ${id} failed: ${(error as Error).message}\n`);
  }
}

const stats = (phase: string) => {
  const memory = process.memoryUsage();
  const { user, system } = process.cpuUsage();
  const { lanes } = engine.loopHealth();
  const fds = readdirSync('/proc/self/fd').length;
  flush();
  say(
    `M ${phase} ${memory.rss} ${fds} ${memory.heapUsed} ${user + system} ${lanes.prompt.inFlight} ${lanes.slow.inFlight} ${lanes.slowOriginCount}`,
  );
};
const load = config.load;
if (load?.warmUp === true) {
  stats('cold');
  // 32 at a time: every first contact is a TLS handshake, CPU on both sides.
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < load.hosts.length) {
        const host = load.hosts[next++] ?? 'h0';
        await enqueue(host, `w-${host}`);
      }
    }),
  );
  while ((await engine.listDeliveries({ state: 'pending', limit: 1 })).length > 0) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
stats('warm');
process.once('SIGUSR2', startLoad);
say('warmed');

/** The load, from the parent's SIGUSR2 on: both children start their phases at the same moment. */
function startLoad(): void {
  const startAt = Date.now();
  const faultAt = startAt + config.controlMs;
  const endAt = faultAt + config.faultMs;
  setTimeout(() => stats('control'), config.controlMs);
  setTimeout(() => stats('fault'), config.controlMs + config.faultMs);
  if (load === undefined) return;
  let sent = 0;
  const tick = setInterval(() => {
    const now = Date.now();
    if (now >= endAt) {
      clearInterval(tick);
      return;
    }
    const due = Math.floor(((now - startAt) * load.ratePerSec) / 1000);
    for (; sent < due; sent++) {
      const host = load.hosts[sent % load.hosts.length] ?? 'h0';
      void enqueue(host, `${host}-${sent}`);
    }
  }, 5);
  const flood = load.flood;
  if (flood !== undefined) {
    setTimeout(
      async () => {
        let next = 0;
        let first = 0;
        // 64 at a time: a burst from the company's own systems, group-committed as it comes.
        await Promise.all(
          Array.from({ length: 64 }, async () => {
            while (next < flood.count) {
              const n = next++;
              await engine.enqueue({ id: `${flood.host}-${n}`, url: urlOf(flood.host), body: body(`flood-${n}`) });
              first ||= Date.now();
            }
          }),
        );
        say(`F ${flood.count} ${first} ${Date.now()}`);
      },
      faultAt - startAt + flood.atMs,
    );
  }
}

process.once('SIGTERM', async () => {
  stats('end');
  await engine.stop({ graceMs: 0 });
  await store.close();
  await pool?.end();
  process.exit(0);
});
