import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeliveryDetail, type DeliveryPage, PORTAL_API, startSandbox } from '../src/index.js';
import { AUTH_KEY, api, basicAuth, eventually, PASSWORD, startTestReceiver, tempDir, USERNAME } from './helpers.js';

let receiver: Awaited<ReturnType<typeof startTestReceiver>>;
const dir = tempDir();
const start = () =>
  startSandbox({
    dataDir: dir.path,
    timeScale: 600,
    allowLoopbackTargets: true,
    trustedCa: [receiver.certificate.cert],
  });

beforeAll(async () => {
  receiver = await startTestReceiver();
});
afterAll(async () => {
  await receiver?.close();
  dir.remove();
});

describe('portal projection', () => {
  it('is rebuilt from the outbox and the engine at start (a data folder from before the portal, or a crash)', async () => {
    const first = await start();
    await first.sandbox.addUser(USERNAME, PASSWORD);
    await api(first.url, 'PUT', '/sandbox/settings', { body: { webhookUrl: receiver.url, authKey: AUTH_KEY } });
    const created = await api(first.url, 'POST', '/sandbox/sessions', { body: {} });
    const sessionId = (created.json as { id: string }).id;
    await api(first.url, 'POST', '/api/v1/kyc/session/finish', { body: { sessionId } });
    await eventually(() => (receiver.requests.length > 0 ? true : undefined));
    await first.close();

    // What an older sandbox (or a crash before the attempt hook ran) leaves: no projection rows.
    const db = new Database(join(dir.path, 'sandbox.db'));
    db.exec('DELETE FROM portal_deliveries; DELETE FROM portal_attempts;');
    db.close();

    const second = await start();
    try {
      const get = async (path: string) =>
        (await fetch(`${second.url}${path}`, { headers: { authorization: basicAuth(USERNAME, PASSWORD) } })).json();
      const page = (await get(`${PORTAL_API.deliveries}?status=delivered`)) as DeliveryPage;
      expect(page.deliveries).toEqual([
        expect.objectContaining({ sessionId, state: 'delivered', attempts: 1, lastStatus: 200 }),
      ]);
      const detail = (await get(`${PORTAL_API.deliveries}/${page.deliveries[0]?.eventId}`)) as DeliveryDetail;
      expect(detail.request.headers).toContainEqual({
        name: 'authorization',
        value: `Bearer ••••${AUTH_KEY.slice(-4)}`,
      });
      const health = (await get(PORTAL_API.health)) as { attempts: number };
      expect(health.attempts).toBe(1);
    } finally {
      await second.close();
    }
  });
});
