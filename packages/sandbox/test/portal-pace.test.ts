import { createTestCertificate } from '@kyc/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EndpointHealth, PORTAL_API } from '../src/index.js';
import { listen } from '../src/server/listen.js';
import {
  AUTH_KEY,
  api,
  basicAuth,
  dashboardLogin,
  eventually,
  PASSWORD,
  startTestReceiver,
  startTestSandbox,
  USERNAME,
} from './helpers.js';

let sandbox: Awaited<ReturnType<typeof startTestSandbox>>;
let hanging: Awaited<ReturnType<typeof listen>>;
let healthy: Awaited<ReturnType<typeof startTestReceiver>>;
const bob = basicAuth('bob', PASSWORD);

beforeAll(async () => {
  const certificate = await createTestCertificate(['127.0.0.1', 'localhost']);
  // Accepts every request and never answers.
  hanging = await listen(() => new Promise<Response>(() => undefined), {
    port: 0,
    host: '127.0.0.1',
    tls: certificate,
  });
  healthy = await startTestReceiver({ certificate });
  sandbox = await startTestSandbox({ ca: certificate.cert });
  await sandbox.running.sandbox.addUser('bob', PASSWORD, { company: 'Other Company' });
  await api(sandbox.url, 'PUT', '/sandbox/settings', { body: { webhookUrl: hanging.url, authKey: AUTH_KEY } });
  await api(sandbox.url, 'PUT', '/sandbox/settings', {
    body: { webhookUrl: healthy.url, authKey: AUTH_KEY },
    authorization: bob,
  });
});
afterAll(async () => {
  await sandbox?.close();
  await hanging?.close();
  await healthy?.close();
});

async function finish(authorization: string): Promise<void> {
  const created = await api(sandbox.url, 'POST', '/sandbox/sessions', { body: { shape: 'status' }, authorization });
  const id = (created.json as { id: string }).id;
  expect(
    (await api(sandbox.url, 'POST', '/api/v1/kyc/session/finish', { body: { sessionId: id }, authorization })).status,
  ).toBe(200);
}

const health = async (authorization: string) =>
  (await api(sandbox.url, 'GET', PORTAL_API.health, { authorization })).json as EndpointHealth;

describe('endpoint health: the pace of the company’s own endpoint', () => {
  it('tells the company whose endpoint hangs that it hangs and after how long attempts time out; the other company’s is prompt', async () => {
    await finish(sandbox.basic);
    await finish(bob);
    await eventually(async () => ((await health(sandbox.basic)).pace.state === 'hangs' ? true : undefined));
    const mine = await health(sandbox.basic);
    // The sandbox's tests run at a time scale, which shortens the engine's deadline: the message says the real one.
    expect(mine.pace.message).toMatch(
      /^Your endpoint hangs: attempts time out after \d+(\.\d)? s\. 1 attempt is waiting on it now/,
    );
    expect(mine.pace.inFlight).toBe(1);
    expect(mine.pace.message).toContain('other companies’ deliveries never wait for yours');
    await eventually(async () => (healthy.requests.length > 0 ? true : undefined));
    const theirs = await health(bob);
    expect(theirs.pace).toMatchObject({ state: 'prompt', message: 'Your endpoint answers promptly.' });
    // Nobody else's endpoint is named in a company's health.
    expect(JSON.stringify(theirs)).not.toContain(hanging.url);
    const cookie = await dashboardLogin(sandbox.url, USERNAME);
    const page = await fetch(`${sandbox.url}/dashboard/health`, { headers: { cookie } });
    expect(await page.text()).toContain('Your endpoint hangs: attempts time out after');
  });
});
