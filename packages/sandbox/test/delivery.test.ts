import { KycClient } from '@kyc/client';
import { HEADERS } from '@kyc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeliveryView, SANDBOX_API } from '../src/index.js';
import {
  AUTH_KEY,
  api,
  contract,
  eventually,
  PASSWORD,
  startTestReceiver,
  startTestSandbox,
  USERNAME,
} from './helpers.js';

let receiver: Awaited<ReturnType<typeof startTestReceiver>>;
let sandbox: Awaited<ReturnType<typeof startTestSandbox>>;

beforeAll(async () => {
  receiver = await startTestReceiver({ failFirst: true });
  sandbox = await startTestSandbox({ ca: receiver.certificate.cert, timeScale: 600 });
  await api(sandbox.url, 'PUT', SANDBOX_API.settings, { body: { webhookUrl: receiver.url, authKey: AUTH_KEY } });
});
afterAll(async () => {
  await sandbox?.close();
  await receiver?.close();
});

const deliveryOf = async (id: string) =>
  (await api(sandbox.url, 'GET', `${SANDBOX_API.sessions}/${id}/delivery`)).json as DeliveryView;

describe('delivery, retry and redelivery through the sandbox', () => {
  it('retries a failed delivery on the compressed schedule, logs each attempt, and redelivers with the same Webhook-Id', async () => {
    const created = await api(sandbox.url, 'POST', SANDBOX_API.sessions, { body: { status: 'REJECTED' } });
    const id = (created.json as { id: string }).id;
    const client = new KycClient({
      fetch: contract.fetch,
      baseUrl: sandbox.url,
      username: USERNAME,
      password: PASSWORD,
      maxRetries: 0,
    });
    await client.finishSession(id);

    const delivered = await eventually(async () => {
      const view = await deliveryOf(id);
      return view.state === 'delivered' ? view : undefined;
    });
    expect(delivered.attempts.map((a) => [a.attempt, a.outcome, a.status])).toEqual([
      [1, 'server_error', 500],
      [2, 'delivered', 200],
    ]);
    // 1 minute at 600× is 100 ms of real time between the failed attempt and the retry.
    const [first, second] = delivered.attempts;
    expect(Date.parse(second?.at ?? '') - Date.parse(first?.at ?? '')).toBeGreaterThanOrEqual(90);
    expect(first?.responseSnippet).toBeTruthy();
    expect(receiver.events.filter((e) => e.sessionId === id)).toHaveLength(1);

    const redeliver = await api(sandbox.url, 'POST', `${SANDBOX_API.deliveries}/${delivered.eventId}/redeliver`);
    expect(redeliver.status).toBe(202);
    const again = await eventually(async () => {
      const view = await deliveryOf(id);
      return view.attempts.some((a) => a.round === 2) && view.state === 'delivered' ? view : undefined;
    });
    expect(again.attempts.at(-1)).toMatchObject({ round: 2, outcome: 'delivered', status: 200 });
    const seen = receiver.requests.filter((r) => r.body.includes(id));
    expect(seen.map((r) => r.status)).toEqual([500, 200, 200]);
    expect(new Set(seen.map((r) => r.headers.get(HEADERS.webhookId)))).toEqual(new Set([delivered.eventId]));
    expect(seen.at(-1)?.body).toBe(seen[0]?.body);
    // The receiver recognised the redelivery as a duplicate: the handler did not run again.
    expect(receiver.events.filter((e) => e.sessionId === id)).toHaveLength(1);
  });

  it('sends the Auth Key saved now (spec §5): a redelivery after a key change carries the new key', async () => {
    const created = await api(sandbox.url, 'POST', SANDBOX_API.sessions, { body: {} });
    const oldId = (created.json as { id: string }).id;
    await api(sandbox.url, 'POST', '/api/v1/kyc/session/finish', { body: { sessionId: oldId } });
    const old = await eventually(async () => {
      const view = await deliveryOf(oldId);
      return view.state === 'delivered' ? view : undefined;
    });
    const newKey = 'rotated-key-Vb7Qw3Zr9Lp2Xk5N';
    await api(sandbox.url, 'PUT', SANDBOX_API.settings, { body: { webhookUrl: receiver.url, authKey: newKey } });
    try {
      expect((await api(sandbox.url, 'POST', `${SANDBOX_API.deliveries}/${old.eventId}/redeliver`)).status).toBe(202);
      const next = await api(sandbox.url, 'POST', SANDBOX_API.sessions, { body: {} });
      const newId = (next.json as { id: string }).id;
      await api(sandbox.url, 'POST', '/api/v1/kyc/session/finish', { body: { sessionId: newId } });
      const keysSeen = await eventually(() => {
        const oldKeys = receiver.requests
          .filter((r) => r.body.includes(oldId))
          .map((r) => r.headers.get('authorization'));
        const newKeys = receiver.requests
          .filter((r) => r.body.includes(newId))
          .map((r) => r.headers.get('authorization'));
        return oldKeys.length >= 2 && newKeys.length >= 1 ? { oldKeys, newKeys } : undefined;
      });
      // The first delivery had the key of its day; its redelivery, after the change, the new one.
      expect(keysSeen.oldKeys.slice(0, 2)).toEqual([`Bearer ${AUTH_KEY}`, `Bearer ${newKey}`]);
      expect(keysSeen.newKeys[0]).toBe(`Bearer ${newKey}`);
    } finally {
      await api(sandbox.url, 'PUT', SANDBOX_API.settings, { body: { webhookUrl: receiver.url, authKey: AUTH_KEY } });
    }
  });

  it('refuses to redeliver an unknown delivery (404)', async () => {
    const answer = await api(sandbox.url, 'POST', `${SANDBOX_API.deliveries}/evt_unknown/redeliver`);
    expect(answer.status).toBe(404);
  });
});
