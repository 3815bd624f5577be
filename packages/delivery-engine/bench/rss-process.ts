/**
 * Memory with 100 000 deliveries waiting for a retry, in a fresh process: RSS of an idle engine
 * over an empty store, then over a store holding 100 000 deliveries whose first attempt failed
 * and whose retry is due in 15 minutes.
 * Reports the active timers too: the engine holds one sleep, not one per delivery.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDeliveryEngine, sqliteDeliveryStore } from '../src/index.js';

const WAITING = 100_000;
const dir = mkdtempSync(join(tmpdir(), 'kyc-bench-rss-'));
const store = sqliteDeliveryStore({ path: join(dir, 'rss.db') });
const engine = createDeliveryEngine({ store, allowPrivateNetworks: ['127.0.0.0/8'] });
const settle = async () => {
  await new Promise((resolve) => setTimeout(resolve, 1500));
  globalThis.gc?.();
  return process.memoryUsage();
};
const timers = () => process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;

await engine.start();
const empty = await settle();
const emptyTimers = timers();
// The engine is stopped while the store is filled, so it cannot claim the rows first.
await engine.stop();
// Each delivery is made to wait for a retry the way the engine makes it: stored, claimed, its
// failed attempt recorded (with a log row) and the next attempt scheduled 15 minutes out.
const now = Date.now();
const retryAt = now + 15 * 60 * 1000;
const body = JSON.stringify({ sessionId: 'rss', status: 'PENDING' });
const BATCH = 1000;
for (let start = 0; start < WAITING; start += BATCH) {
  for (let i = start; i < start + BATCH; i++) {
    await store.insert({
      id: `rss-${i}`,
      url: 'https://127.0.0.1:9/hook',
      origin: 'https://127.0.0.1:9',
      authKey: 'rss-bench-key-0123456789',
      signingSecret: undefined,
      body,
      createdAt: now,
    });
  }
  const claims = await store.claim({ now, limit: BATCH, leaseMs: 45_000, excludeOrigins: [] });
  await Promise.all(
    claims.map((claim) =>
      store.complete(
        claim,
        {
          attempt: 1,
          round: 1,
          startedAt: now,
          requestHeaders: { authorization: 'Bearer [redacted]' },
          status: undefined,
          outcome: 'connect_error',
          dialedAddress: '127.0.0.1',
          latencyMs: 1,
          responseSnippet: undefined,
          errorMessage: 'connect ECONNREFUSED 127.0.0.1:9',
        },
        { state: 'pending', nextAttemptAt: retryAt, finishedAt: now },
      ),
    ),
  );
}
const waiting = (await store.list({ state: 'pending', limit: 1 })).length;
if (waiting === 0 || (await store.nextDueAt([])) !== retryAt) throw new Error('deliveries are not waiting for a retry');
await engine.start();
const full = await settle();
process.send?.({
  waiting: WAITING,
  emptyRssMb: empty.rss / 2 ** 20,
  fullRssMb: full.rss / 2 ** 20,
  emptyHeapMb: empty.heapUsed / 2 ** 20,
  fullHeapMb: full.heapUsed / 2 ** 20,
  emptyTimers,
  fullTimers: timers(),
});
await engine.stop();
await store.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
