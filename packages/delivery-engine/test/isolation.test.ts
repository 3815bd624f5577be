import { POSTGRES_URL, postgresAvailable } from '@kyc/test-support';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createDeliveryEngine, type DeliveryEngine, type DeliveryStore, sqliteDeliveryStore } from '../src/index.js';
import { postgresDeliveryStore } from '../src/postgres.js';
import { bodyFor, recordAttempts } from './support/attempts.js';
import { uniqueSchema } from './support/postgres-schema.js';
import { loopbackOptions, startReceiver, type TestReceiver } from './support/receiver.js';

/** At the defaults: 16 prompt slots and 4 per endpoint, so 4 dead endpoints filled every slot before. */
const DEAD = 8;
const SLOW = 2;
const EVENTS_EACH = 10;
const HEALTHY = 40;

const available = await postgresAvailable();
const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 8 });
afterAll(() => pool.end());

/**
 * Eight endpoints that accept the connection and never answer and two that answer 200 after 20 s
 * (legal: the limit is 30 s), each with a backlog queued first, then a healthy endpoint's events:
 * with every option at its default, the healthy events are delivered while every slow attempt
 * still hangs, and each slow endpoint gets exactly its own cap of requests, never fewer.
 */
async function runIsolation(stores: readonly DeliveryStore<never>[] | readonly DeliveryStore<unknown>[]) {
  const dead = await Promise.all(Array.from({ length: DEAD }, () => startReceiver(() => 'hang')));
  const slow = await Promise.all(
    Array.from({ length: SLOW }, () => startReceiver(() => ({ status: 200, delayMs: 20_000 }))),
  );
  const live = await startReceiver(() => 200);
  const attempts = recordAttempts();
  const engines: DeliveryEngine<unknown>[] = [];
  const options = await loopbackOptions();
  for (const store of stores) {
    engines.push(
      createDeliveryEngine({ store: store as DeliveryStore<unknown>, ...options, onAttempt: attempts.onAttempt }),
    );
  }
  const [engine] = engines;
  if (engine === undefined) throw new Error('no store');
  try {
    for (const engine of engines) await engine.start();
    const hanging: TestReceiver[] = [...dead, ...slow];
    // Their events are older, so a claim by due time alone would send them first.
    for (const [n, receiver] of hanging.entries()) {
      for (let i = 0; i < EVENTS_EACH; i++)
        await engine.enqueue({ url: receiver.url, body: bodyFor(`hang-${n}-${i}`) });
    }
    const perEndpoint = 4 * engines.length;
    await Promise.all(hanging.map((receiver) => receiver.waitFor(perEndpoint)));
    const enqueuedAt = new Map<string, number>();
    for (let i = 0; i < HEALTHY; i++) {
      const { id } = await engine.enqueue({ url: live.url, body: bodyFor(`live-${i}`) });
      enqueuedAt.set(id, Date.now());
    }
    // Well within the first slow attempts' 20 and 30 s: before, the healthy events waited for those.
    await attempts.waitFor(HEALTHY, 15_000);
    expect(attempts.events.every((e) => e.url === live.url && e.state === 'delivered')).toBe(true);
    expect(live.requests).toHaveLength(HEALTHY);
    const latencies = live.requests.map((r) => r.at - (enqueuedAt.get(String(r.headers['webhook-id'])) ?? 0));
    // Far below the deadline the healthy events waited for before (the design bound is 250 ms).
    expect(Math.max(...latencies)).toBeLessThan(5_000);
    // Each hanging endpoint holds exactly its own cap: no fewer (never delayed to protect others), no more.
    for (const receiver of hanging) expect(receiver.requests).toHaveLength(perEndpoint);
    // An attempt moves to the slow lane once it has waited slowAfterMs (250 ms) unanswered; the
    // newest hanging attempts may still be younger than that when the healthy events are through.
    await vi.waitFor(
      () => {
        const inSlowLane = engines.reduce((n, e) => n + e.loopHealth().lanes.slow.inFlight, 0);
        expect(inSlowLane).toBe(hanging.length * perEndpoint);
      },
      { timeout: 5_000, interval: 50 },
    );
    const lanes = engines.map((e) => e.loopHealth().lanes);
    for (const lane of lanes) {
      expect(lane.prompt.inFlight).toBe(0);
      expect(lane.slowOrigins.map((o) => o.origin).sort()).toEqual(hanging.map((r) => r.origin).sort());
      expect(lane.slowOrigins.every((o) => o.reason === 'no_answer' && o.inFlight === 4)).toBe(true);
    }
  } finally {
    for (const engine of engines) await engine.stop({ graceMs: 0 });
    await Promise.all([...dead, ...slow, live].map((receiver) => receiver.close()));
  }
}

describe('endpoint isolation at the default options', () => {
  it('SQLite: endpoints that hang, more than the prompt slots divided by the cap, never delay another endpoint', {
    timeout: 60_000,
  }, async () => {
    const store = sqliteDeliveryStore({ path: ':memory:' });
    try {
      await runIsolation([store]);
    } finally {
      await store.close();
    }
  });

  it.runIf(available)(
    'Postgres, two workers: the same, each worker holding each hanging endpoint to its own cap',
    { timeout: 60_000 },
    async () => {
      const schema = uniqueSchema('isolation');
      try {
        await runIsolation([postgresDeliveryStore({ pool, schema }), postgresDeliveryStore({ pool, schema })]);
      } finally {
        await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      }
    },
  );
});
