import { expect, it } from 'vitest';
import type { DeliveryStore } from '../src/index.js';
import { attempt, type ConformanceContext, delivery, LEASE, T0 } from './support/conformance-rows.js';

/**
 * The conformance suite's reads: listing, an event's context on every claim, the queue's
 * counts. Registered inside `storeConformance`, which opens a fresh store for each test.
 */
export function storeReadConformance(current: () => ConformanceContext): void {
  it('lists deliveries newest first with filters', async () => {
    const { store, claim } = current();
    await store.insert(delivery('a', { createdAt: T0 }));
    await store.insert(delivery('b', { createdAt: T0 + 1, url: 'https://b.example/x', origin: 'https://b.example' }));
    await store.insert(delivery('c', { createdAt: T0 + 2, authKey: undefined }));
    const [ca] = await claim(T0 + 2, 1);
    if (ca === undefined) throw new Error('claim expected');
    await store.complete(ca, attempt(1, 'delivered', { status: 200 }), {
      state: 'delivered',
      nextAttemptAt: undefined,
      finishedAt: T0 + 3,
    });
    const ids = async (filter: Parameters<DeliveryStore['list']>[0]) => (await store.list(filter)).map((d) => d.id);
    expect(await ids({})).toEqual(['c', 'b', 'a']);
    expect(await ids({ state: 'delivered' })).toEqual(['a']);
    expect(await ids({ state: 'pending' })).toEqual(['c', 'b']);
    expect(await ids({ url: 'https://b.example/x' })).toEqual(['b']);
    expect(await ids({ createdSince: T0 + 1 })).toEqual(['c', 'b']);
    expect(await ids({ createdBefore: T0 + 2, limit: 1 })).toEqual(['b']);
    const [c] = await store.list({ limit: 1 });
    expect(c).toMatchObject({ id: 'c', hasAuthKey: false });
  });

  it('keeps the session id, company id and enqueuing traceparent for every claim of an event', async () => {
    const { fixture, store, claim } = current();
    const traceParent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    await store.insert(delivery('t1', { sessionId: 's-1', companyId: 'acme', traceParent }));
    await store.insert(delivery('t2', { origin: 'https://b.example', url: 'https://b.example/hook' }));
    const claims = await claim(T0);
    expect(claims.find((c) => c.id === 't1')).toMatchObject({
      createdAt: T0,
      sessionId: 's-1',
      companyId: 'acme',
      traceParent,
    });
    const bare = claims.find((c) => c.id === 't2');
    expect(bare?.traceParent).toBeUndefined();
    expect(bare?.sessionId).toBeUndefined();
    // Another process claiming after a lost lease sees the same context (with one writer, the
    // owner's successor once it stops holding what its predecessor had in flight).
    if (fixture.oneWriter) await store.close();
    const other = await fixture.openAnother();
    const reclaim = (now: number) => other.claim({ now, limit: 10, leaseMs: LEASE, excludeOrigins: [] });
    if (fixture.oneWriter) expect(await reclaim(T0)).toEqual([]);
    await fixture.endLeases?.();
    const [again] = (await reclaim(T0 + LEASE)).filter((c) => c.id === 't1');
    expect(again?.traceParent).toBe(traceParent);
    await other.close();
  });

  it('counts pending deliveries as due, waiting for a retry and in flight', async () => {
    const { fixture, store, claim } = current();
    const queueStats = store.queueStats?.bind(store);
    expect(queueStats).toBeTypeOf('function');
    if (queueStats === undefined) return;
    expect(await queueStats(T0)).toEqual({ due: 0, waitingRetry: 0, inFlight: 0, oldestDueAt: undefined });
    await store.insert(delivery('q1', { createdAt: T0 }));
    await store.insert(delivery('q2', { createdAt: T0 + 10, origin: 'https://b.example' }));
    await store.insert(delivery('q3', { createdAt: T0 + 20, origin: 'https://c.example' }));
    await store.insert(delivery('q4', { createdAt: T0 + 30, origin: 'https://d.example' }));
    expect(await queueStats(T0 + 100)).toEqual({ due: 4, waitingRetry: 0, inFlight: 0, oldestDueAt: T0 });
    const [first] = await claim(T0 + 100, 1);
    expect(first?.id).toBe('q1');
    if (first === undefined) return;
    await store.complete(first, attempt(1, 'server_error'), {
      state: 'pending',
      nextAttemptAt: T0 + 60_000,
      finishedAt: T0 + 200,
    });
    const [second] = await claim(T0 + 300, 1);
    expect(second?.id).toBe('q2');
    expect(await queueStats(T0 + 300)).toEqual({ due: 2, waitingRetry: 1, inFlight: 1, oldestDueAt: T0 + 20 });
    // A lease that ended without a result makes its delivery due again (a lease on the database's
    // clock: due since it first was, T0 + 10); an owner's claim never lapses while the owner lives.
    await fixture.endLeases?.();
    expect(await queueStats(T0 + 300 + LEASE)).toEqual(
      fixture.oneWriter
        ? { due: 2, waitingRetry: 1, inFlight: 1, oldestDueAt: T0 + 20 }
        : { due: 3, waitingRetry: 1, inFlight: 0, oldestDueAt: fixture.endLeases ? T0 + 10 : T0 + 20 },
    );
    if (second !== undefined) {
      await store.complete(second, attempt(1, 'delivered', { status: 200 }), {
        state: 'delivered',
        nextAttemptAt: undefined,
        finishedAt: T0 + 400,
      });
    }
    expect(await queueStats(T0 + 400)).toEqual({ due: 2, waitingRetry: 1, inFlight: 0, oldestDueAt: T0 + 20 });
  });
}
