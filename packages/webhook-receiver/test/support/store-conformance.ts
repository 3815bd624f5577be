import { describe, expect, it } from 'vitest';
import type { IdempotencyStore } from '../../src/index.js';

/** A store under test, with a way to move its time forward. */
export interface StoreHarness {
  readonly store: IdempotencyStore;
  /** A second store instance over the same backend (another replica), for races. */
  readonly replica: IdempotencyStore;
  /** Moves the store's clock forward (an injected clock, or a real wait where the backend keeps time). */
  advance(ms: number): Promise<void>;
  close(): Promise<void>;
}

// Leases and TTLs are short only where a test waits them out: a Redis harness really sleeps, so
// the margins (a few hundred ms) absorb a loaded machine; the other harnesses move an injected clock.
const LEASE = 300;
const TTL = 800;
const LONG = 60_000;
let counter = 0;
const uniqueKey = (label: string) => `${label}:${Date.now()}:${counter++}:${Math.random().toString(36).slice(2)}`;

/** The one suite every idempotency store passes: claim races, leases and their renewal, release, TTL. */
export function storeConformanceSuite(name: string, open: () => Promise<StoreHarness>): void {
  describe(`${name} idempotency store conformance`, () => {
    async function withStore(run: (harness: StoreHarness) => Promise<void>) {
      const harness = await open();
      try {
        await run(harness);
      } finally {
        await harness.close();
      }
    }

    it('claims an absent key once; a second claim sees it in progress', () =>
      withStore(async ({ store }) => {
        const key = uniqueKey('claim');
        const first = await store.claim(key, { leaseMs: LONG });
        expect(first.outcome).toBe('claimed');
        const second = await store.claim(key, { leaseMs: LONG });
        expect(second.outcome).toBe('in_progress');
        if (second.outcome === 'in_progress') {
          expect(second.retryAfterMs).toBeGreaterThan(LONG / 2);
          expect(second.retryAfterMs).toBeLessThanOrEqual(LONG);
        }
        expect((await store.claim(uniqueKey('other'), { leaseMs: LONG })).outcome).toBe('claimed');
      }));

    it('remembers a completed key as completed', () =>
      withStore(async ({ store, replica }) => {
        const key = uniqueKey('complete');
        const claim = await store.claim(key, { leaseMs: LONG });
        if (claim.outcome !== 'claimed') throw new Error('expected a claim');
        expect(await store.complete(key, claim.token, { ttlMs: LONG })).toBe(true);
        expect(await store.claim(key, { leaseMs: LEASE })).toEqual({ outcome: 'completed' });
        expect(await replica.claim(key, { leaseMs: LEASE })).toEqual({ outcome: 'completed' });
      }));

    it('releases after a failed handler so the next claim runs it, with a new token', () =>
      withStore(async ({ store }) => {
        const key = uniqueKey('release');
        const claim = await store.claim(key, { leaseMs: LONG });
        if (claim.outcome !== 'claimed') throw new Error('expected a claim');
        expect(await store.release(key, claim.token)).toBe(true);
        const again = await store.claim(key, { leaseMs: LONG });
        expect(again.outcome).toBe('claimed');
        if (again.outcome === 'claimed') expect(again.token).not.toBe(claim.token);
      }));

    it('ignores complete and release with a token that does not own the claim', () =>
      withStore(async ({ store }) => {
        const key = uniqueKey('token');
        const claim = await store.claim(key, { leaseMs: LONG });
        if (claim.outcome !== 'claimed') throw new Error('expected a claim');
        expect(await store.release(key, 'not-the-token')).toBe(false);
        expect(await store.complete(key, 'not-the-token', { ttlMs: TTL })).toBe(false);
        expect(await store.extend?.(key, 'not-the-token', { leaseMs: LONG })).toBe(false);
        expect((await store.claim(key, { leaseMs: LONG })).outcome).toBe('in_progress');
        expect(await store.release(uniqueKey('absent'), claim.token)).toBe(false);
      }));

    it('lets another caller take over a claim whose lease ended; the old token then changes nothing', () =>
      withStore(async ({ store, replica, advance }) => {
        const key = uniqueKey('lease');
        const stale = await store.claim(key, { leaseMs: LEASE });
        if (stale.outcome !== 'claimed') throw new Error('expected a claim');
        await advance(LEASE + 50);
        const fresh = await replica.claim(key, { leaseMs: LONG });
        expect(fresh.outcome).toBe('claimed');
        expect(await store.release(key, stale.token)).toBe(false);
        expect(await store.complete(key, stale.token, { ttlMs: TTL })).toBe(false);
        expect(await store.extend?.(key, stale.token, { leaseMs: LONG })).toBe(false);
        expect((await store.claim(key, { leaseMs: LONG })).outcome).toBe('in_progress');
      }));

    it('completes a claim whose lease ended when nobody took it over (the work was done)', () =>
      withStore(async ({ store, advance }) => {
        const key = uniqueKey('late');
        const claim = await store.claim(key, { leaseMs: LEASE });
        if (claim.outcome !== 'claimed') throw new Error('expected a claim');
        await advance(LEASE + 50);
        expect(await store.complete(key, claim.token, { ttlMs: LONG })).toBe(true);
        expect(await store.claim(key, { leaseMs: LEASE })).toEqual({ outcome: 'completed' });
      }));

    it('forgets a completed key after its TTL', () =>
      withStore(async ({ store, advance }) => {
        const key = uniqueKey('ttl');
        const claim = await store.claim(key, { leaseMs: LONG });
        if (claim.outcome !== 'claimed') throw new Error('expected a claim');
        await store.complete(key, claim.token, { ttlMs: TTL });
        await advance(TTL / 2);
        expect((await store.claim(key, { leaseMs: LEASE })).outcome).toBe('completed');
        await advance(TTL);
        expect((await store.claim(key, { leaseMs: LEASE })).outcome).toBe('claimed');
      }));

    it('extends a live claim past its first lease, for its own token only', () =>
      withStore(async ({ store, replica, advance }) => {
        expect(store.extend).toBeTypeOf('function');
        const key = uniqueKey('extend');
        const claim = await store.claim(key, { leaseMs: 3 * LEASE });
        if (claim.outcome !== 'claimed') throw new Error('expected a claim');
        await advance(2 * LEASE);
        expect(await store.extend?.(key, claim.token, { leaseMs: 3 * LEASE })).toBe(true);
        await advance(2 * LEASE); // 4 leases since the claim: past the first lease, within the renewed one
        expect((await replica.claim(key, { leaseMs: LONG })).outcome).toBe('in_progress');
        expect(await store.complete(key, claim.token, { ttlMs: LONG })).toBe(true);
        expect(await store.extend?.(key, claim.token, { leaseMs: LONG })).toBe(false);
        expect(await replica.claim(key, { leaseMs: LONG })).toEqual({ outcome: 'completed' });
      }));

    it('never brings a released claim back by extending it', () =>
      withStore(async ({ store }) => {
        const key = uniqueKey('extend-released');
        const claim = await store.claim(key, { leaseMs: LONG });
        if (claim.outcome !== 'claimed') throw new Error('expected a claim');
        expect(await store.release(key, claim.token)).toBe(true);
        expect(await store.extend?.(key, claim.token, { leaseMs: LONG })).toBe(false);
        expect((await store.claim(key, { leaseMs: LONG })).outcome).toBe('claimed');
      }));

    it('gives exactly one of 50 racing claims (over two replicas) the key', () =>
      withStore(async ({ store, replica }) => {
        const key = uniqueKey('race');
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, index) => (index % 2 === 0 ? store : replica).claim(key, { leaseMs: LONG })),
        );
        expect(results.filter((result) => result.outcome === 'claimed')).toHaveLength(1);
        expect(results.filter((result) => result.outcome === 'in_progress')).toHaveLength(49);
      }));
  });
}
