import { postgresAvailable } from '@kyc/test-support';
import { describe, expect, it } from 'vitest';
import { type Clock, createDeliveryEngine, type DeliveryEngine } from '../src/index.js';
import { postgresDeliveryStore } from '../src/postgres.js';
import { bodyFor, pause, recordAttempts } from './support/attempts.js';
import { poolsEndedAfterAll, TEST_SEALING_KEYS, uniqueSchema } from './support/postgres-schema.js';
import { loopbackOptions, startReceiver } from './support/receiver.js';

// Issue 32: a worker's wall clock stepped 60 s forward with 16 attempts in flight, and one of
// them was sent twice. Leases run on the database's clock; only the retry schedule runs on the
// engine's (injectable) clock.
const available = await postgresAvailable();
const newPool = poolsEndedAfterAll();

/** The wall clock, plus a step the test makes (NTP, a resumed VM): the kind leases must ignore. */
function steppingClock(): Clock & { step(ms: number): void } {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    sleep: (ms, signal) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, Math.min(ms, 2 ** 31 - 1)));
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      }),
    step: (ms) => {
      offset += ms;
    },
  };
}

describe.skipIf(!available)('postgres leases and a worker clock that steps', () => {
  it('sends nothing twice when one worker clock jumps +1 h and another -1 h under load', async () => {
    const schema = uniqueSchema('clockstep');
    // Answers take 100-300 ms, so attempts are in flight when the clocks step.
    const receiver = await startReceiver((request) => ({ status: 200, delayMs: 100 + (request.body.length % 200) }));
    const ahead = steppingClock();
    const behind = steppingClock();
    const attempts = recordAttempts();
    const engines: DeliveryEngine[] = [];
    const worker = async (clock: Clock) => {
      const engine = createDeliveryEngine({
        store: postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool: newPool({ max: 6 }), schema }),
        ...(await loopbackOptions()),
        clock,
        concurrency: 16,
        perEndpointConcurrency: 16,
        // A lease of 2 s: the steps are 1 800 times longer.
        deadlineMs: 1000,
        leaseMs: 2000,
        pollIntervalMs: 50,
        onAttempt: attempts.onAttempt,
      });
      engines.push(engine);
      return engine;
    };
    const producerPool = newPool();
    const producer = createDeliveryEngine({
      store: postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool: producerPool, schema }),
      ...(await loopbackOptions()),
    });
    try {
      const a = await worker(ahead);
      const b = await worker(behind);
      await a.start();
      await b.start();
      const ids: string[] = [];
      const enqueue = async (n: number) => {
        for (let i = 0; i < n; i++) {
          ids.push((await producer.enqueue({ url: receiver.url, body: bodyFor(`step-${ids.length}`) })).id);
        }
      };
      await enqueue(120);
      // Both workers have attempts in flight now: step their clocks apart by two hours.
      await pause(150);
      ahead.step(3_600_000);
      behind.step(-3_600_000);
      await enqueue(120);
      await attempts.waitFor(ids.length, 30_000);
      // Anything sent twice would arrive after a lease ended: wait past one.
      await pause(2500);
      for (const id of ids) expect(receiver.counts.get(id), id).toBe(1);
      const records = await Promise.all(ids.map((id) => producer.getDelivery(id)));
      expect(records.every((r) => r?.state === 'delivered' && r.attemptLog.length === 1)).toBe(true);
      expect(attempts.events).toHaveLength(ids.length);
    } finally {
      await Promise.all(engines.map((engine) => engine.stop()));
      await receiver.close();
      await producerPool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    }
  }, 60_000);
});
