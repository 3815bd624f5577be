import { expect, it } from 'vitest';
import type { DeliveryStore } from '../src/index.js';
import { delivery, LEASE, T0 } from './support/conformance-rows.js';

const at = (name: string) => ({ url: `https://${name}.example/hook`, origin: `https://${name}.example` });

async function insertMany(store: DeliveryStore<unknown>, prefix: string, count: number, first: number, name = 'a') {
  for (let i = 0; i < count; i += 200) {
    await Promise.all(
      Array.from({ length: Math.min(200, count - i) }, (_, j) =>
        store.insert(delivery(`${prefix}${i + j}`, { ...at(name), createdAt: first + i + j })),
      ),
    );
  }
}

/**
 * What keeps one company's endpoint from slowing another's, at the store: claims go round the
 * origins, the slow lane's origins count against its own budget, and a saturated origin's backlog
 * hides nobody's delivery. Part of `storeConformance`.
 */
export function storeFairnessConformance(store: () => DeliveryStore<unknown>): void {
  it('goes round the origins: a claim smaller than the due work takes one of each origin before a second of any', async () => {
    await insertMany(store(), 'a', 6, T0);
    await insertMany(store(), 'b', 3, T0 + 10, 'b');
    await insertMany(store(), 'c', 3, T0 + 20, 'c');
    const claimed = await store().claim({
      now: T0 + 100,
      limit: 3,
      leaseMs: LEASE,
      excludeOrigins: [],
      maxPerOrigin: 4,
    });
    expect(claimed.map((c) => c.id).sort()).toEqual(['a0', 'b0', 'c0']);
    const next = await store().claim({ now: T0 + 100, limit: 5, leaseMs: LEASE, excludeOrigins: [], maxPerOrigin: 4 });
    expect(next.map((c) => c.id).sort()).toEqual(['a1', 'a2', 'b1', 'b2', 'c1']);
  });

  it('counts the slow lane origins against its own budget, never the prompt lane', async () => {
    await insertMany(store(), 'a', 5, T0);
    await insertMany(store(), 's', 3, T0 - 20, 'slow1');
    await insertMany(store(), 't', 3, T0 - 10, 'slow2');
    const slow = { origins: ['https://slow1.example', 'https://slow2.example'], limit: 1 };
    // The slow origins' rows are the oldest, yet they take only the slow lane's one slot.
    const claimed = await store().claim({
      now: T0 + 100,
      limit: 2,
      slow,
      leaseMs: LEASE,
      excludeOrigins: [],
      maxPerOrigin: 4,
    });
    expect(claimed.map((c) => c.id).sort()).toEqual(['a0', 'a1', 's0']);
    // A full prompt lane leaves the slow lane its room; a full slow lane leaves the prompt lane its own.
    const onlySlow = await store().claim({
      now: T0 + 100,
      limit: 0,
      slow: { ...slow, limit: 2 },
      leaseMs: LEASE,
      excludeOrigins: [],
      maxPerOrigin: 4,
    });
    expect(onlySlow.map((c) => c.id).sort()).toEqual(['s1', 't0']);
    expect(await store().nextDueAt([], { limit: 0, slow: { origins: ['https://slow2.example'], limit: 1 } })).toBe(
      T0 - 9,
    );
    expect(await store().nextDueAt([], { limit: 1, slow: { ...slow, limit: 0 } })).toBe(T0 + 2);
    expect(await store().nextDueAt(['https://a.example'], { limit: 1, slow: { ...slow, limit: 0 } })).toBeUndefined();
  });

  it('finds another origin’s delivery behind a saturated origin’s backlog in one claim, and its due time', async () => {
    await insertMany(store(), 'a', 3000, T0);
    await store().insert(delivery('b0', { ...at('b'), createdAt: T0 + 5000 }));
    const request = {
      now: T0 + 6000,
      limit: 16,
      leaseMs: LEASE,
      excludeOrigins: ['https://a.example'],
      maxPerOrigin: 4,
    };
    expect(await store().nextDueAt(['https://a.example'])).toBe(T0 + 5000);
    expect((await store().claim(request)).map((c) => c.id)).toEqual(['b0']);
    // The backlog is still there for its own origin, oldest first, within its room.
    const own = await store().claim({ ...request, excludeOrigins: [] });
    expect(own.map((c) => c.id)).toEqual(['a0', 'a1', 'a2', 'a3']);
  });
}
