import { describe, expect, it } from 'vitest';
import { storeConformanceSuite } from '../../test/support/store-conformance.js';
import { memoryIdempotencyStore } from './memory.js';

storeConformanceSuite('memory', async () => {
  let time = 1_700_000_000_000;
  const store = memoryIdempotencyStore({ now: () => time });
  return {
    store,
    replica: store, // one process: the "replica" is the same memory
    advance: async (ms) => {
      time += ms;
    },
    close: async () => {},
  };
});

describe('memoryIdempotencyStore bounds', () => {
  it('forgets the least recently used finished keys first and keeps live claims', async () => {
    const store = memoryIdempotencyStore({ maxEntries: 100 });
    const live = await store.claim('live', { leaseMs: 60_000 });
    expect(live.outcome).toBe('claimed');
    for (let index = 0; index < 1000; index++) {
      const claim = await store.claim(`k${index}`, { leaseMs: 60_000 });
      if (claim.outcome !== 'claimed') throw new Error(`k${index} was not new`);
      await store.complete(`k${index}`, claim.token, { ttlMs: 60_000 });
      if (index % 10 === 0) expect((await store.claim('k0', { leaseMs: 60_000 })).outcome).toBe('completed'); // keeps k0 used
    }
    expect((await store.claim('live', { leaseMs: 60_000 })).outcome).toBe('in_progress');
    expect((await store.claim('k999', { leaseMs: 60_000 })).outcome).toBe('completed');
    expect((await store.claim('k0', { leaseMs: 60_000 })).outcome).toBe('completed');
    expect((await store.claim('k1', { leaseMs: 60_000 })).outcome).toBe('claimed'); // forgotten
  });

  it('refuses a bad maxEntries', () => {
    expect(() => memoryIdempotencyStore({ maxEntries: 1 })).toThrow(/maxEntries/);
  });
});
