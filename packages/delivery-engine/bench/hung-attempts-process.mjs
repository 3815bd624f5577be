// What attempts that hang cost an engine process, as a user runs it (the built package): RSS,
// heap after a full collection and descriptors, before and while `origins × 4` attempts wait on
// endpoints that accept the request and never answer. Replies over IPC.
// `node --expose-gc bench/hung-attempts-process.mjs <origins> <port> <ca file>`.
import { readdirSync, readFileSync } from 'node:fs';
import { createDeliveryEngine, sqliteDeliveryStore } from '../dist/index.js';

const [origins, port, caFile] = [Number(process.argv[2]), Number(process.argv[3]), process.argv[4]];
const engine = createDeliveryEngine({
  store: sqliteDeliveryStore({ path: ':memory:' }),
  allowPrivateNetworks: ['127.0.0.0/8'],
  tls: { ca: readFileSync(caFile, 'utf8') },
  resolver: { resolve: async () => [{ address: '127.0.0.1', family: 4 }] },
});
const measure = async () => {
  await new Promise((resolve) => setTimeout(resolve, 500));
  globalThis.gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heap: heapUsed, fds: readdirSync('/proc/self/fd').length };
};
await engine.start();
const before = await measure();
for (let o = 0; o < origins; o++) {
  for (let i = 0; i < 4; i++) {
    await engine.enqueue({
      url: `https://h${o}.hang.test:${port}/hook`,
      body: JSON.stringify({ sessionId: `s${o}-${i}` }),
    });
  }
}
const want = origins * 4;
for (let waited = 0; waited < 20_000 && engine.loopHealth().lanes.slow.inFlight < want; waited += 50) {
  await new Promise((resolve) => setTimeout(resolve, 50));
}
const hung = engine.loopHealth().lanes.slow.inFlight;
const after = await measure();
process.send?.({ hung, before, after }, async () => {
  await engine.stop({ graceMs: 0 });
  process.exit(0);
});
