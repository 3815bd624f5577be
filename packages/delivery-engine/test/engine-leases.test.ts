import { describe, expect, it } from 'vitest';
import { createDeliveryEngine, createManualClock, sqliteDeliveryStore, WORKER_LOST_OUTCOME } from '../src/index.js';
import { bodyFor, recordAttempts } from './support/attempts.js';
import { loopbackOptions, startReceiver } from './support/receiver.js';

const T0 = Date.parse('2026-11-22T06:00:00.000Z');
const LEASE = 45_000;

describe('leases', () => {
  it('counts repeated worker loss on one delivery as a failed attempt, without sending', async () => {
    const clock = createManualClock(T0);
    const receiver = await startReceiver(() => 200);
    const store = sqliteDeliveryStore({ path: ':memory:' });
    const attempts = recordAttempts();
    const engine = createDeliveryEngine({
      store,
      clock,
      leaseMs: LEASE,
      maxWorkerLosses: 3,
      ...(await loopbackOptions()),
      onAttempt: attempts.onAttempt,
    });
    try {
      const { id } = await engine.enqueue({ url: receiver.url, body: bodyFor('lost-1') });
      // Three workers claim it in turn and die before recording anything.
      for (let lost = 0; lost < 3; lost++) {
        const [claim] = await store.claim({ now: clock.now(), limit: 1, leaseMs: LEASE, excludeOrigins: [] });
        expect(claim?.lostLeases).toBe(lost);
        clock.advance(LEASE);
      }
      await engine.start();
      await attempts.waitFor(1);
      expect(receiver.requests).toHaveLength(0);
      const record = await engine.getDelivery(id);
      expect(record?.attemptLog[0]).toMatchObject({ attempt: 1, outcome: WORKER_LOST_OUTCOME, status: undefined });
      expect(record?.attemptLog[0]?.errorMessage).toMatch(/lease lost 3 times/);
      expect(record).toMatchObject({ state: 'pending', attempts: 1 });

      // The schedule goes on: the next attempt is sent normally.
      clock.advance(record?.nextAttemptAt === undefined ? 0 : record.nextAttemptAt - clock.now());
      await attempts.waitFor(2);
      expect(await engine.getDelivery(id)).toMatchObject({ state: 'delivered', attempts: 2 });
      expect(receiver.requests).toHaveLength(1);
    } finally {
      await engine.stop();
      await receiver.close();
    }
  });

  it('stop() releases attempts still in flight after the grace period, recording nothing', async () => {
    const receiver = await startReceiver(() => 'hang');
    const engine = createDeliveryEngine({
      store: sqliteDeliveryStore({ path: ':memory:' }),
      ...(await loopbackOptions()),
      deadlineMs: 20_000,
    });
    await engine.start();
    const { id } = await engine.enqueue({ url: receiver.url, body: bodyFor('stop-1') });
    await receiver.waitFor(1);
    const created = (await engine.getDelivery(id))?.createdAt;
    await engine.stop({ graceMs: 50 });
    const record = await engine.getDelivery(id);
    expect(record).toMatchObject({ state: 'pending', attempts: 0, attemptLog: [] });
    // Released: due again at its old time, not after a lease.
    expect(record?.nextAttemptAt).toBe(created);
    await receiver.close();
  });
});
