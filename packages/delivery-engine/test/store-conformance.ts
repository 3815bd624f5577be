import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryStore } from '../src/index.js';
import { storeFairnessConformance } from './store-fairness-conformance.js';
import { storeReadConformance } from './store-read-conformance.js';
import { attempt, type ConformanceFixture, delivery, LEASE, T0 } from './support/conformance-rows.js';

export type { ConformanceFixture } from './support/conformance-rows.js';

/**
 * The one behaviour every delivery store must show. Registered by `sqlite-store.test.ts` and
 * `postgres-store.test.ts`; a new store passes this before the engine may use it.
 */
export function storeConformance(name: string, open: () => Promise<ConformanceFixture>): void {
  describe(`${name} store conformance`, () => {
    let fixture: ConformanceFixture;
    let store: DeliveryStore<unknown>;
    const claim = (now: number, limit = 10, excludeOrigins: string[] = []) =>
      store.claim({ now, limit, leaseMs: LEASE, excludeOrigins });

    beforeEach(async () => {
      fixture = await open();
      store = fixture.store;
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    it('stores a delivery due at once and reads it back without its secrets', async () => {
      expect(await store.insert(delivery('e1'))).toEqual({ created: true });
      const record = await store.get('e1');
      expect(record).toMatchObject({
        id: 'e1',
        state: 'pending',
        hasAuthKey: true,
        attempts: 0,
        round: 1,
        createdAt: T0,
        nextAttemptAt: T0,
        body: '{"id":"e1"}',
        attemptLog: [],
        redeliveries: [],
      });
      expect(JSON.stringify(record)).not.toContain('k-secret-value');
      expect(await store.nextDueAt([])).toBe(T0);
      expect(await store.get('missing')).toBeUndefined();
    });

    it('keeps the first delivery when an id is inserted twice', async () => {
      await store.insert(delivery('e1'));
      expect(await store.insert(delivery('e1', { body: '{"other":1}' }))).toEqual({ created: false });
      expect((await store.get('e1'))?.body).toBe('{"id":"e1"}');
    });

    it('claims only due deliveries, oldest first, up to the limit, skipping busy origins', async () => {
      await store.insert(delivery('late', { createdAt: T0 + 10 }));
      await store.insert(delivery('early', { createdAt: T0 }));
      await store.insert(delivery('future', { createdAt: T0 + 60_000 }));
      await store.insert(
        delivery('other', { createdAt: T0 + 5, url: 'https://b.example/x', origin: 'https://b.example' }),
      );
      expect((await claim(T0 + 10, 10, ['https://b.example'])).map((c) => c.id)).toEqual(['early', 'late']);
      const [other] = await claim(T0 + 10, 1);
      expect(other).toMatchObject({ id: 'other', attempts: 0, roundAttempts: 0, round: 1, lostLeases: 0 });
      // The claim carries the key sealed; the store opens it for the attempt.
      expect(other?.authKey).toMatch(/^kyc-sealed:1:/);
      expect(other && store.openCredentials?.(other)).toEqual({
        authKey: 'k-secret-value-123456',
        signingSecret: undefined,
      });
      expect(await claim(T0 + 10)).toEqual([]);
      // An owner's claims never lapse, and a lease on the database's clock is no due time of the
      // engine's: the next due time is the future delivery's (a durable lease on the engine's
      // clock would make them due again at its end).
      expect(await store.nextDueAt([])).toBe(
        fixture.oneWriter || fixture.endLeases !== undefined ? T0 + 60_000 : T0 + 10 + LEASE,
      );
    });

    it('claims at most each origin room when asked, so a backlog of one endpoint does not fill the claim', async () => {
      const b = { url: 'https://b.example/x', origin: 'https://b.example' };
      const c = { url: 'https://c.example/x', origin: 'https://c.example' };
      for (let i = 0; i < 6; i++) await store.insert(delivery(`a${i}`, { createdAt: T0 + i }));
      for (let i = 0; i < 3; i++) await store.insert(delivery(`b${i}`, { ...b, createdAt: T0 + 10 + i }));
      for (let i = 0; i < 3; i++) await store.insert(delivery(`c${i}`, { ...c, createdAt: T0 + 20 + i }));
      const first = await store.claim({
        now: T0 + 100,
        limit: 12,
        leaseMs: LEASE,
        excludeOrigins: [],
        maxPerOrigin: 2,
        // One attempt to b.example is already in flight here: room for one more.
        busyOrigins: [['https://b.example', 1]],
      });
      expect(first.map((claimed) => claimed.id)).toEqual(['a0', 'a1', 'b0', 'c0', 'c1']);
      // The rows left out were not leased: they are claimable at once.
      const rest = await store.claim({ now: T0 + 100, limit: 12, leaseMs: LEASE, excludeOrigins: [] });
      expect(rest.map((claimed) => claimed.id)).toEqual(['a2', 'a3', 'a4', 'a5', 'b1', 'b2', 'c2']);
      expect(rest.every((claimed) => claimed.lostLeases === 0)).toBe(true);
    });

    it('gives a claim to exactly one of two concurrent claimers', async () => {
      const another = await fixture.openAnother();
      for (let i = 0; i < 40; i++) await store.insert(delivery(`c${i}`, { createdAt: T0 + i }));
      // With one writer, the other handle's claims are refused: the concurrent claims all come from one.
      const claimers = fixture.oneWriter ? [store] : [store, another];
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          (claimers[i % claimers.length] ?? store).claim({
            now: T0 + 100,
            limit: 7,
            leaseMs: LEASE,
            excludeOrigins: [],
          }),
        ),
      );
      const ids = results.flat().map((c) => c.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBe(40);
      if (fixture.oneWriter) {
        await expect(another.claim({ now: T0 + 100, limit: 1, leaseMs: LEASE, excludeOrigins: [] })).rejects.toThrow(
          expect.objectContaining({ code: 'store_locked' }),
        );
        await expect(another.insert(delivery('x1'))).rejects.toThrow(expect.objectContaining({ code: 'store_locked' }));
        // Reading never needs the lock.
        expect((await another.get('c0'))?.id).toBe('c0');
      }
      await another.close();
    });

    it('makes a delivery due again when its lease ends and counts the lost lease', async () => {
      if (fixture.oneWriter) return ownerLeaseConformance(fixture);
      await store.insert(delivery('e1'));
      const [first] = await claim(T0);
      expect(await claim(T0 + LEASE - 1)).toEqual([]);
      await fixture.endLeases?.();
      const [second] = await claim(T0 + LEASE);
      expect(second?.lostLeases).toBe(1);
      expect(second?.token).toBeGreaterThan(first?.token ?? Number.MAX_SAFE_INTEGER);
      // The first worker's late result is fenced off.
      if (first === undefined || second === undefined) throw new Error('claims expected');
      const stale = await store.complete(first, attempt(1, 'delivered', { status: 200 }), {
        state: 'delivered',
        nextAttemptAt: undefined,
        finishedAt: T0 + LEASE + 1,
      });
      expect(stale).toBe(false);
      expect((await store.get('e1'))?.attemptLog).toEqual([]);
      expect(await store.release(first)).toBe(false);
      expect(
        await store.complete(second, attempt(1, 'server_error'), {
          state: 'pending',
          nextAttemptAt: T0 + LEASE + 60,
          finishedAt: T0 + LEASE,
        }),
      ).toBe(true);
      const [third] = await claim(T0 + LEASE + 60);
      expect(third).toMatchObject({ lostLeases: 0, attempts: 1, roundAttempts: 1 });
    });

    it('records attempts with their transition and stops claiming finished deliveries', async () => {
      await store.insert(delivery('e1'));
      const [c1] = await claim(T0);
      if (c1 === undefined) throw new Error('claim expected');
      const a1 = attempt(1, 'server_error', { errorMessage: 'HTTP 500' });
      expect(await store.complete(c1, a1, { state: 'pending', nextAttemptAt: T0 + 1000, finishedAt: T0 + 5 })).toBe(
        true,
      );
      expect(await store.get('e1')).toMatchObject({
        state: 'pending',
        attempts: 1,
        nextAttemptAt: T0 + 1000,
        lastOutcome: 'server_error',
        lastStatus: 500,
        finishedAt: undefined,
        attemptLog: [a1],
      });
      expect(await claim(T0 + 999)).toEqual([]);
      const [c2] = await claim(T0 + 1000);
      if (c2 === undefined) throw new Error('claim expected');
      const a2 = attempt(2, 'delivered', { status: 200, dialedAddress: '::1', responseSnippet: undefined });
      await store.complete(c2, a2, { state: 'delivered', nextAttemptAt: undefined, finishedAt: T0 + 1003 });
      expect(await store.get('e1')).toMatchObject({
        state: 'delivered',
        attempts: 2,
        nextAttemptAt: undefined,
        finishedAt: T0 + 1003,
        attemptLog: [a1, a2],
      });
      expect(await claim(T0 + 10_000_000)).toEqual([]);
      expect(await store.nextDueAt([])).toBeUndefined();
    });

    it('releases a claim back to its old due time without counting a lost lease', async () => {
      await store.insert(delivery('e1'));
      const [c1] = await claim(T0 + 5);
      if (c1 === undefined) throw new Error('claim expected');
      expect(await store.release(c1)).toBe(true);
      expect(await store.nextDueAt([])).toBe(T0);
      expect(await store.nextDueAt(['https://a.example'])).toBeUndefined();
      const [c2] = await claim(T0 + 5);
      expect(c2?.lostLeases).toBe(0);
    });

    it('redelivers a finished delivery as a new round and records it', async () => {
      await store.insert(delivery('e1'));
      expect(await store.redeliver('e1', T0)).toBe('in_progress');
      expect(await store.redeliver('nope', T0)).toBe('not_found');
      const [c1] = await claim(T0);
      if (c1 === undefined) throw new Error('claim expected');
      await store.complete(c1, attempt(1, 'client_error'), {
        state: 'failed',
        nextAttemptAt: undefined,
        finishedAt: T0,
      });
      expect(await store.redeliver('e1', T0 + 50)).toBe('started');
      expect(await store.get('e1')).toMatchObject({
        state: 'pending',
        round: 2,
        attempts: 1,
        roundAttempts: 0,
        nextAttemptAt: T0 + 50,
        finishedAt: undefined,
        redeliveries: [{ round: 2, requestedAt: T0 + 50 }],
      });
      const [c2] = await claim(T0 + 50);
      expect(c2).toMatchObject({ round: 2, attempts: 1, roundAttempts: 0 });
    });

    storeReadConformance(() => ({ fixture, store, claim }));
    storeFairnessConformance(() => store);
  });
}

/**
 * The one-writer form of "a lease ends": a claim of the living owner never lapses, however far
 * its clock moves; the owner's successor holds what the predecessor had in flight for one lease
 * (the predecessor may still be finishing it), then claims it with one more unrecorded send.
 */
async function ownerLeaseConformance(fixture: ConformanceFixture): Promise<void> {
  const { store } = fixture;
  await store.insert(delivery('e1'));
  const [first] = await store.claim({ now: T0, limit: 1, leaseMs: LEASE, excludeOrigins: [] });
  expect(first?.lostLeases).toBe(0);
  expect(await store.claim({ now: T0 + 100 * LEASE, limit: 1, leaseMs: LEASE, excludeOrigins: [] })).toEqual([]);
  // The owner goes away with the attempt unrecorded, as a crash would leave it.
  await store.close();
  const successor = await fixture.openAnother();
  try {
    const at = (now: number) => successor.claim({ now, limit: 1, leaseMs: LEASE, excludeOrigins: [] });
    expect(await at(T0)).toEqual([]);
    expect(await successor.nextDueAt([])).toBe(T0 + LEASE);
    expect(await at(T0 + LEASE - 1)).toEqual([]);
    const [second] = await at(T0 + LEASE);
    expect(second).toMatchObject({ id: 'e1', lostLeases: 1, attempts: 0 });
    if (second === undefined) throw new Error('claim expected');
    expect(
      await successor.complete(second, attempt(1, 'delivered', { status: 200, unrecordedSends: second.lostLeases }), {
        state: 'delivered',
        nextAttemptAt: undefined,
        finishedAt: T0 + LEASE + 1,
      }),
    ).toBe(true);
    expect((await successor.get('e1'))?.attemptLog[0]).toMatchObject({ outcome: 'delivered', unrecordedSends: 1 });
  } finally {
    await successor.close();
  }
}
