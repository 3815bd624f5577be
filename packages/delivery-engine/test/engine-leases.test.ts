import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createDeliveryEngine, createManualClock, sqliteDeliveryStore, WORKER_LOST_OUTCOME } from '../src/index.js';
import { bodyFor, pause, recordAttempts } from './support/attempts.js';
import { loopbackOptions, startReceiver } from './support/receiver.js';

const T0 = Date.parse('2026-11-22T06:00:00.000Z');
const LEASE = 45_000;

describe('leases', () => {
  it('counts repeated worker loss on one delivery as a failed attempt, without sending', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kyc-leases-'));
    const path = join(dir, 'lost.db');
    const clock = createManualClock(T0);
    const receiver = await startReceiver(() => 200);
    let store = sqliteDeliveryStore({ path });
    const { id } = await createDeliveryEngine({ store, clock, ...(await loopbackOptions()) }).enqueue({
      url: receiver.url,
      body: bodyFor('lost-1'),
    });
    // Three owners in turn take it and go away before recording anything, as a crash leaves it;
    // each successor first holds its predecessor's attempt for one lease.
    const claimNow = () => store.claim({ now: clock.now(), limit: 1, leaseMs: LEASE, excludeOrigins: [] });
    for (let lost = 0; lost < 3; lost++) {
      if (lost > 0) {
        expect(await claimNow()).toEqual([]);
        clock.advance(LEASE);
      }
      const [claim] = await claimNow();
      expect(claim?.lostLeases).toBe(lost);
      await store.close();
      store = sqliteDeliveryStore({ path });
    }
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
      await engine.start();
      // The engine holds the third owner's attempt for a lease, then counts the loss.
      while (clock.sleepers === 0) await pause(5);
      clock.advance(LEASE);
      await attempts.waitFor(1);
      expect(receiver.requests).toHaveLength(0);
      const record = await engine.getDelivery(id);
      expect(record?.attemptLog[0]).toMatchObject({
        attempt: 1,
        outcome: WORKER_LOST_OUTCOME,
        status: undefined,
        unrecordedSends: 3,
      });
      expect(record?.attemptLog[0]?.errorMessage).toMatch(/lease lost 3 times/);
      expect(record).toMatchObject({ state: 'pending', attempts: 1 });

      // The schedule goes on: the next attempt is sent normally.
      clock.advance(record?.nextAttemptAt === undefined ? 0 : record.nextAttemptAt - clock.now());
      await attempts.waitFor(2);
      expect(await engine.getDelivery(id)).toMatchObject({ state: 'delivered', attempts: 2 });
      expect(receiver.requests).toHaveLength(1);
    } finally {
      await engine.stop();
      await store.close();
      await receiver.close();
      rmSync(dir, { recursive: true, force: true });
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

  it('stop() lets an attempt in flight finish within the grace period and records it', async () => {
    const receiver = await startReceiver(() => ({ status: 200, delayMs: 300 }));
    const engine = createDeliveryEngine({
      store: sqliteDeliveryStore({ path: ':memory:' }),
      ...(await loopbackOptions()),
    });
    await engine.start();
    const { id } = await engine.enqueue({ url: receiver.url, body: bodyFor('stop-2') });
    await receiver.waitFor(1);
    await engine.stop({ graceMs: 10_000 });
    expect(await engine.getDelivery(id)).toMatchObject({ state: 'delivered', attempts: 1 });
    expect(receiver.requests).toHaveLength(1);
    await receiver.close();
  });

  it('survives an async onAttempt hook that rejects, and logs it', async () => {
    const receiver = await startReceiver(() => 200);
    const warnings: string[] = [];
    const attempts = recordAttempts();
    const engine = createDeliveryEngine({
      store: sqliteDeliveryStore({ path: ':memory:' }),
      ...(await loopbackOptions()),
      onAttempt: async (event) => {
        attempts.onAttempt(event);
        throw new Error('hook broke');
      },
      logger: { warn: (message) => warnings.push(message) },
    });
    try {
      await engine.start();
      for (let i = 0; i < 3; i++) await engine.enqueue({ url: receiver.url, body: bodyFor(`hook-${i}`) });
      await attempts.waitFor(3);
      await pause(20);
      expect(warnings.filter((w) => w.includes('onAttempt'))).toHaveLength(3);
    } finally {
      await engine.stop();
      await receiver.close();
    }
  });

  it('holds no timer per delivery waiting for a retry', async () => {
    const receiver = await startReceiver(() => 503);
    const attempts = recordAttempts();
    const engine = createDeliveryEngine({
      store: sqliteDeliveryStore({ path: ':memory:' }),
      ...(await loopbackOptions()),
      concurrency: 16,
      perEndpointConcurrency: 16,
      onAttempt: attempts.onAttempt,
    });
    const timers = () => process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;
    try {
      await engine.start();
      await pause(50);
      const before = timers();
      for (let i = 0; i < 300; i++) await engine.enqueue({ url: receiver.url, body: bodyFor(`timer-${i}`) });
      await attempts.waitFor(300);
      await pause(50);
      // 300 deliveries now wait a minute for their retry; the engine still sleeps on one timer.
      expect(attempts.events.every((e) => e.state === 'pending' && e.nextAttemptAt !== undefined)).toBe(true);
      expect(timers() - before).toBeLessThanOrEqual(2);
    } finally {
      await engine.stop();
      await receiver.close();
    }
  });

  it('survives a stored row it cannot send (a corrupt sealed secret): a credentials_error attempt, nothing sent, retried', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kyc-corrupt-'));
    const path = join(dir, 'corrupt.db');
    const receiver = await startReceiver(() => 200);
    const errors: string[] = [];
    const store = sqliteDeliveryStore({ path });
    const engine = createDeliveryEngine({
      store,
      ...(await loopbackOptions()),
      logger: { error: (message, fields) => errors.push(`${message} ${JSON.stringify(fields)}`) },
    });
    try {
      const { id } = await engine.enqueue({
        url: receiver.url,
        body: bodyFor('corrupt-1'),
        signingSecret: `whsec_${Buffer.alloc(24, 7).toString('base64')}`,
      });
      // Another tool left a value this engine cannot open (not sealed, or sealed for another row).
      const raw = new Database(path);
      raw.prepare('UPDATE deliveries SET sealed_signing_secret = ? WHERE id = ?').run('not-a-secret', id);
      raw.close();
      await engine.start();
      for (let i = 0; i < 200 && errors.length === 0; i++) await pause(10);
      expect(errors[0]).toMatch(/no credentials for an attempt: nothing sent/);
      expect(errors.join('\n')).not.toContain('not-a-secret');
      expect(receiver.requests).toHaveLength(0);
      for (let i = 0; i < 200 && (await engine.getDelivery(id))?.attempts !== 1; i++) await pause(10);
      const delivery = await engine.getDelivery(id);
      expect(delivery).toMatchObject({ state: 'pending', attempts: 1, lastOutcome: 'credentials_error' });
      expect(delivery?.attemptLog[0]?.errorMessage).toMatch(/^sealing_key_wrong: .*nothing was sent$/);
    } finally {
      await engine.stop();
      await receiver.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
