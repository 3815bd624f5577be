import { DEFAULT_IDEMPOTENCY_LEASE_MS, DEFAULT_IDEMPOTENCY_TTL_MS } from '@kyc/contracts';
import { type IdempotencyStore, memoryIdempotencyStore, parseWebhook } from '../src/index.js';
import { bodies } from './fixtures.js';

/**
 * Memory of the memory idempotency store, in its own process (run with --expose-gc): bytes per
 * remembered key, RSS with 1 000 000 keys remembered, and RSS after a flood of 1 000 000
 * distinct events into a store with the default bound. Prints one JSON line.
 */
const KEYS = 1_000_000;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
// Keys as the receiver derives them without a Webhook-Id (session id + status + time): ~70 characters.
const template = parseWebhook(bodies.status).idempotencyKey;
const keyFor = (index: number) => `${template}-${index}`;

async function remember(store: IdempotencyStore, count: number, from: number): Promise<void> {
  for (let index = from; index < from + count; index++) {
    const key = keyFor(index);
    const claim = await store.claim(key, { leaseMs: DEFAULT_IDEMPOTENCY_LEASE_MS });
    if (claim.outcome !== 'claimed') throw new Error(`claim ${claim.outcome}`);
    await store.complete(key, claim.token, { ttlMs: DEFAULT_IDEMPOTENCY_TTL_MS });
    // A server returns to the event loop between requests; V8 only gives memory back from there.
    if (index % 1000 === 999) await new Promise((resolve) => setImmediate(resolve));
  }
}

function settle(): NodeJS.MemoryUsage {
  for (let round = 0; round < 3; round++) gc();
  return process.memoryUsage();
}

// RSS rarely shrinks after a free: each measure runs in a fresh process (argv[2]: full | flood).
const empty = settle();
if (process.argv[2] === 'flood') {
  // A quarter of the flood, then the rest: a bounded store ends both at the same size.
  const store = memoryIdempotencyStore();
  await remember(store, KEYS / 4, 0);
  const quarter = settle();
  await remember(store, KEYS - KEYS / 4, KEYS / 4);
  const flooded = settle();
  // The bound forgot the oldest keys (and the store stayed reachable until measured).
  if ((await store.claim(keyFor(0), { leaseMs: 1 })).outcome !== 'claimed') throw new Error('bound not applied');
  process.stdout.write(
    `${JSON.stringify({
      rssEmptyMb: empty.rss / 2 ** 20,
      rssQuarterMb: quarter.rss / 2 ** 20,
      heapQuarterMb: quarter.heapUsed / 2 ** 20,
      rssAfterFloodMb: flooded.rss / 2 ** 20,
      heapAfterFloodMb: flooded.heapUsed / 2 ** 20,
    })}\n`,
  );
} else {
  // Exactly the bound: none of the 1 000 000 keys is forgotten.
  const store = memoryIdempotencyStore({ maxEntries: KEYS });
  await remember(store, KEYS, 0);
  const full = settle();
  // Read after measuring, so the store is still reachable when the heap is measured.
  if ((await store.claim(keyFor(0), { leaseMs: 1 })).outcome !== 'completed') throw new Error('key forgotten');
  process.stdout.write(
    `${JSON.stringify({
      keys: KEYS,
      keyLength: keyFor(KEYS - 1).length,
      // The store's typed arrays live outside the JS heap: counted with it.
      bytesPerKey: (full.heapUsed + full.arrayBuffers - empty.heapUsed - empty.arrayBuffers) / KEYS,
      rssEmptyMb: empty.rss / 2 ** 20,
      rssFullMb: full.rss / 2 ** 20,
    })}\n`,
  );
}
