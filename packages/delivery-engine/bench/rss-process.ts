/**
 * Memory with 100 000 deliveries waiting for a retry, in a fresh process: RSS of an idle engine
 * over an empty store, then over a store holding 100 000 pending deliveries due in 15 minutes.
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
const later = Date.now() + 15 * 60 * 1000;
const body = JSON.stringify({ sessionId: 'rss', status: 'PENDING' });
for (let i = 0; i < WAITING; i++) {
  await store.insert({
    id: `rss-${i}`,
    url: 'https://127.0.0.1:9/hook',
    origin: 'https://127.0.0.1:9',
    authKey: undefined,
    signingSecret: undefined,
    body,
    createdAt: later + i,
  });
}
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
