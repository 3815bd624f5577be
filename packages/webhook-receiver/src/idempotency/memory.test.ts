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
  it('forgets finished keys not seen again first and keeps live claims', async () => {
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

  it('holds its bound under a flood of live claims and keeps the newest', async () => {
    // Handlers slower than the flood: every key stays claimed. Each claim must still cost O(1)
    // (`pnpm bench micro` shows the claim-only case); here the bound and who is kept.
    const store = memoryIdempotencyStore({ maxEntries: 100 });
    const tokens: string[] = [];
    for (let index = 0; index < 1000; index++) {
      const claim = await store.claim(`k${index}`, { leaseMs: 60_000 });
      if (claim.outcome !== 'claimed') throw new Error(`k${index} was not new`);
      tokens.push(claim.token);
    }
    // `extend` with the claim's own token tells whether the key is remembered, without adding one.
    const remembered: number[] = [];
    for (const [index, token] of tokens.entries()) {
      if (await store.extend?.(`k${index}`, token, { leaseMs: 60_000 })) remembered.push(index);
    }
    // The bound holds, and the newest claims are the ones kept (the oldest live claims made room).
    expect(remembered).toEqual(Array.from({ length: 100 }, (_, index) => 900 + index));
    // Completing the remembered claims, and new events after the flood, work as before.
    for (const index of remembered)
      expect(await store.complete(`k${index}`, tokens[index] ?? '', { ttlMs: 60_000 })).toBe(true);
    expect((await store.claim('k999', { leaseMs: 60_000 })).outcome).toBe('completed');
    expect((await store.claim('after', { leaseMs: 60_000 })).outcome).toBe('claimed');
  });

  it('keeps live claims through a flood of completed events', async () => {
    const store = memoryIdempotencyStore({ maxEntries: 100 });
    const live = await Promise.all(
      Array.from({ length: 20 }, (_, index) => store.claim(`live${index}`, { leaseMs: 60_000 })),
    );
    for (let index = 0; index < 1000; index++) {
      const claim = await store.claim(`k${index}`, { leaseMs: 60_000 });
      if (claim.outcome !== 'claimed') throw new Error(`k${index} was not new`);
      await store.complete(`k${index}`, claim.token, { ttlMs: 60_000 });
    }
    for (const [index, claim] of live.entries()) {
      if (claim.outcome !== 'claimed') throw new Error('expected a claim');
      // `extend` is false for a forgotten key (a `complete` would add it back).
      expect(await store.extend?.(`live${index}`, claim.token, { leaseMs: 60_000 })).toBe(true);
    }
  });

  it('remembers maxEntries completed keys, and forgets one for each key beyond', async () => {
    const store = memoryIdempotencyStore({ maxEntries: 100 });
    const remember = async (key: string) => {
      const claim = await store.claim(key, { leaseMs: 60_000 });
      if (claim.outcome !== 'claimed') throw new Error(`${key} was not new`);
      await store.complete(key, claim.token, { ttlMs: 60_000 });
    };
    for (let index = 0; index < 100; index++) await remember(`k${index}`);
    // Claims of remembered keys add nothing: all 100 are still there.
    for (let index = 99; index >= 0; index--)
      expect((await store.claim(`k${index}`, { leaseMs: 1 })).outcome).toBe('completed');
    await remember('k100');
    // Newest first, so that no claim below adds a key before the older ones are looked at.
    const outcomes = [];
    for (let index = 100; index >= 0; index--) outcomes.push((await store.claim(`k${index}`, { leaseMs: 1 })).outcome);
    expect(outcomes.slice(0, 100).every((outcome) => outcome === 'completed')).toBe(true);
    expect(outcomes[100]).toBe('claimed'); // k0, the oldest, made room for k100
  });

  it('refuses a bad maxEntries', () => {
    expect(() => memoryIdempotencyStore({ maxEntries: 1 })).toThrow(/maxEntries/);
  });
});
