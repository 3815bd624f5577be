// The memory of an idle engine process as a user runs it: plain Node over the package's built
// `dist` (the bench builds it first), a store over the file given (empty or holding waiting
// deliveries), the engine started. Replies with RSS, heap and active timers over IPC.
// `node --expose-gc bench/rss-process.mjs <path>`.
import { createDeliveryEngine, sqliteDeliveryStore } from '../dist/index.js';

const store = sqliteDeliveryStore({ path: process.argv[2] });
const engine = createDeliveryEngine({ store, allowPrivateNetworks: ['127.0.0.0/8'] });
await engine.start();
await new Promise((resolve) => setTimeout(resolve, 1500));
globalThis.gc?.();
const { rss, heapUsed } = process.memoryUsage();
const timers = process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;
const pending = (await engine.listDeliveries({ state: 'pending', limit: 1 })).length;
process.send?.({ rssMb: rss / 2 ** 20, heapMb: heapUsed / 2 ** 20, timers, pending }, async () => {
  await engine.stop();
  await store.close();
  process.exit(0);
});
