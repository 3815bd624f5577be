import { HEADERS, WEBHOOK_MAX_ATTEMPTS, WEBHOOK_RETRY_DELAYS_MS } from '@kyc/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createDeliveryEngine,
  createManualClock,
  type DeliveryEngine,
  DeliveryEngineError,
  type ManualClock,
  sqliteDeliveryStore,
} from '../src/index.js';
import { bodyFor, pause, recordAttempts } from './support/attempts.js';
import { type Answer, loopbackOptions, startReceiver, type TestReceiver } from './support/receiver.js';

const T0 = Date.parse('2026-11-22T06:00:00.000Z');
const [D1, D2, D3] = WEBHOOK_RETRY_DELAYS_MS;

let engine: DeliveryEngine | undefined;
let receiver: TestReceiver | undefined;
afterEach(async () => {
  await engine?.stop();
  await receiver?.close();
  engine = undefined;
  receiver = undefined;
});

async function setup(answer: (attempt: number) => Answer) {
  const clock = createManualClock(T0);
  const attempts = recordAttempts();
  receiver = await startReceiver((request) => answer(Number(request.headers[HEADERS.webhookAttempt])));
  engine = createDeliveryEngine({
    store: sqliteDeliveryStore({ path: ':memory:' }),
    clock,
    ...(await loopbackOptions()),
    onAttempt: attempts.onAttempt,
  });
  await engine.start();
  return { clock, attempts, receiver, engine };
}

/** Waits until the engine's loop sleeps on the manual clock again (it has seen the new time). */
async function settle(clock: ManualClock): Promise<void> {
  for (let i = 0; i < 200 && clock.sleepers === 0; i++) await pause(5);
  await pause(30);
}

describe('the retry schedule under an injected clock', () => {
  it('attempts at once, then 1, 5 and 15 minutes after each failure, then fails', async () => {
    const { clock, attempts, receiver, engine } = await setup(() => 500);
    const { id } = await engine.enqueue({ url: receiver.url, body: bodyFor('sched-1'), authKey: 'x7#Lq9!vR2@mZ4$w' });
    await attempts.waitFor(1);

    const expectedStarts = [T0, T0 + D1, T0 + D1 + D2, T0 + D1 + D2 + D3];
    for (let n = 2; n <= WEBHOOK_MAX_ATTEMPTS; n++) {
      const due = expectedStarts[n - 1] ?? Number.NaN;
      expect((await engine.getDelivery(id))?.nextAttemptAt).toBe(due);
      clock.set(due - 1);
      await settle(clock);
      expect(receiver.requests).toHaveLength(n - 1);
      clock.set(due);
      await attempts.waitFor(n);
    }

    const record = await engine.getDelivery(id);
    expect(record).toMatchObject({ state: 'failed', attempts: 4, round: 1, nextAttemptAt: undefined });
    expect(record?.attemptLog.map((a) => a.startedAt)).toEqual(expectedStarts);
    expect(record?.attemptLog.map((a) => a.outcome)).toEqual(Array(4).fill('server_error'));
    expect(attempts.events.map((e) => e.state)).toEqual(['pending', 'pending', 'pending', 'failed']);

    // Every attempt carried the same Webhook-Id, its own number and the clock's time.
    expect(receiver.requests.map((r) => r.headers[HEADERS.webhookId])).toEqual(Array(4).fill(id));
    expect(receiver.requests.map((r) => r.headers[HEADERS.webhookAttempt])).toEqual(['1', '2', '3', '4']);
    expect(receiver.requests.map((r) => Number(r.headers[HEADERS.webhookTimestamp]))).toEqual(
      expectedStarts.map((t) => Math.floor(t / 1000)),
    );

    clock.advance(365 * 86_400_000);
    await settle(clock);
    expect(receiver.requests).toHaveLength(4);
  });

  it('stops at the first 200 and never retries a delivered event', async () => {
    const { clock, attempts, receiver, engine } = await setup((n) => (n === 2 ? 200 : 503));
    const { id } = await engine.enqueue({ url: receiver.url, body: bodyFor('sched-2') });
    await attempts.waitFor(1);
    clock.advance(D1);
    await attempts.waitFor(2);
    expect(await engine.getDelivery(id)).toMatchObject({ state: 'delivered', attempts: 2, lastStatus: 200 });
    clock.advance(D2 + D3);
    await settle(clock);
    expect(receiver.requests).toHaveLength(2);
  });

  it('redelivers a failed event as a new round with the same Webhook-Id and records it', async () => {
    let succeed = false;
    const { clock, attempts, receiver, engine } = await setup(() => (succeed ? 200 : 500));
    const { id } = await engine.enqueue({ url: receiver.url, body: bodyFor('sched-3') });
    await attempts.waitFor(1);
    for (const delay of [D1, D2, D3]) {
      clock.advance(delay);
      await attempts.waitFor(receiver.requests.length + 1);
    }
    expect((await engine.getDelivery(id))?.state).toBe('failed');

    succeed = true;
    clock.advance(7_000);
    await engine.redeliver(id);
    await attempts.waitFor(5);
    const record = await engine.getDelivery(id);
    expect(record).toMatchObject({ state: 'delivered', attempts: 5, roundAttempts: 1, round: 2 });
    expect(record?.redeliveries).toEqual([{ round: 2, requestedAt: T0 + D1 + D2 + D3 + 7_000 }]);
    expect(record?.attemptLog.at(-1)).toMatchObject({ attempt: 5, round: 2, outcome: 'delivered' });
    expect(receiver.requests.at(-1)?.headers[HEADERS.webhookId]).toBe(id);
    expect(receiver.requests.at(-1)?.headers[HEADERS.webhookAttempt]).toBe('5');

    // A delivered event can be sent again on purpose, too; a pending one cannot.
    await engine.redeliver(id);
    await expect(engine.redeliver(id)).rejects.toMatchObject({ code: 'in_progress' });
    await attempts.waitFor(6);
    expect((await engine.getDelivery(id))?.round).toBe(3);
    await expect(engine.redeliver('no-such-event')).rejects.toBeInstanceOf(DeliveryEngineError);
  });

  it('with jitter, only ever delays a retry', async () => {
    const clock = createManualClock(T0);
    const attempts = recordAttempts();
    receiver = await startReceiver(() => 500);
    engine = createDeliveryEngine({
      store: sqliteDeliveryStore({ path: ':memory:' }),
      clock,
      jitter: 0.5,
      ...(await loopbackOptions()),
      onAttempt: attempts.onAttempt,
    });
    await engine.start();
    for (let i = 0; i < 5; i++) await engine.enqueue({ url: receiver.url, body: bodyFor(`jit-${i}`) });
    await attempts.waitFor(5);
    for (const event of attempts.events) {
      const delay = (event.nextAttemptAt ?? 0) - event.attempt.startedAt;
      expect(delay).toBeGreaterThanOrEqual(D1);
      expect(delay).toBeLessThanOrEqual(D1 * 1.5);
    }
  });
});
