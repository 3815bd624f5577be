import { randomBytes } from 'node:crypto';
import { HEADERS, WEBHOOK_RETRY_DELAYS_MS } from '@kyc/contracts';
import { expect } from 'vitest';
import { createDeliveryEngine, createManualClock, type DeliveryStore } from '../../src/index.js';
import { bodyFor, pause, recordAttempts } from './attempts.js';
import { loopbackOptions, startReceiver } from './receiver.js';

/** The secrets a full run stores: two Auth Keys (a rotation) and two signing secrets. */
export interface RunSecrets {
  readonly authKeyA: string;
  readonly authKeyB: string;
  readonly signingS1: string;
  readonly signingS2: string;
}

export const newRunSecrets = (): RunSecrets => ({
  authKeyA: randomBytes(24).toString('base64url'),
  authKeyB: randomBytes(24).toString('base64url'),
  signingS1: `whsec_${randomBytes(32).toString('base64')}`,
  signingS2: `whsec_${randomBytes(32).toString('base64')}`,
});

/**
 * A run through every state a delivery takes, with secrets on every event: delivered, failed
 * after its four attempts, delivered then redelivered, pending after a failed attempt, and
 * pending never sent (enqueued after stop). Returns every line the engine logged and every
 * attempt it reported, as text, for the scans.
 */
export async function fullRun(store: DeliveryStore<unknown>, secrets: RunSecrets): Promise<{ logs: string }> {
  const failing = new Set(['failed-1', 'pending-1']);
  const receiver = await startReceiver((request) =>
    failing.has(String(request.headers[HEADERS.webhookId])) ? 503 : 200,
  );
  const logs: string[] = [];
  const log = (level: string) => (message: string, fields?: unknown) =>
    logs.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
  const attempts = recordAttempts();
  const clock = createManualClock(Date.parse('2026-11-20T10:00:00Z'));
  const engine = createDeliveryEngine({
    store,
    clock,
    ...(await loopbackOptions()),
    logger: { debug: log('debug'), warn: log('warn'), error: log('error') },
    onAttempt: (event) => {
      logs.push(`attempt ${JSON.stringify(event)}`);
      attempts.onAttempt(event);
    },
  });
  const url = receiver.url;
  const signedA = { authKey: secrets.authKeyA, signingSecret: secrets.signingS1 };
  try {
    await engine.start();
    for (const id of ['delivered-1', 'delivered-2', 'failed-1'])
      await engine.enqueue({ id, url, body: bodyFor(id), ...signedA });
    await engine.enqueue({ id: 'redelivered-1', url, body: bodyFor('redelivered-1'), authKey: secrets.authKeyA });
    await attempts.waitFor(4);
    for (const [step, delay] of WEBHOOK_RETRY_DELAYS_MS.entries()) {
      // Let the loop go to sleep on the schedule before the clock moves.
      await pause(50);
      clock.advance(delay + 1);
      await attempts.waitFor(5 + step);
    }
    await engine.redeliver('redelivered-1');
    await attempts.waitFor(8);
    await engine.enqueue({
      id: 'pending-1',
      url,
      body: bodyFor('pending-1'),
      authKey: secrets.authKeyB,
      signingSecret: [secrets.signingS2, secrets.signingS1],
    });
    await attempts.waitFor(9);
  } finally {
    await engine.stop();
    await receiver.close();
  }
  await engine.enqueue({ id: 'pending-2', url, body: bodyFor('pending-2'), authKey: secrets.authKeyB });
  const states = Object.fromEntries(
    await Promise.all(
      ['delivered-1', 'failed-1', 'redelivered-1', 'pending-1', 'pending-2'].map(async (id) => {
        const d = await engine.getDelivery(id);
        return [id, `${d?.state}/${d?.attempts}/${d?.round}`];
      }),
    ),
  );
  expect(states).toEqual({
    'delivered-1': 'delivered/1/1',
    'failed-1': 'failed/4/1',
    'redelivered-1': 'delivered/2/2',
    'pending-1': 'pending/1/1',
    'pending-2': 'pending/0/1',
  });
  // What was sent carried the keys in clear, and the signatures verify: sealing lost nothing.
  const first = receiver.requests.find((r) => r.headers[HEADERS.webhookId] === 'delivered-1');
  expect(first?.headers[HEADERS.authorization]).toBe(`Bearer ${secrets.authKeyA}`);
  const rotated = receiver.requests.find((r) => r.headers[HEADERS.webhookId] === 'pending-1');
  expect(rotated?.headers[HEADERS.authorization]).toBe(`Bearer ${secrets.authKeyB}`);
  expect(String(rotated?.headers[HEADERS.webhookSignature]).split(' ')).toHaveLength(2);
  return { logs: logs.join('\n') };
}
