import { randomUUID } from 'node:crypto';
import { HEADERS } from '@kyc/contracts';
import { createTestCertificate } from '@kyc/test-support';
import { createStandardWebhooksVerifier } from '@kyc/webhook-receiver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNING_SECRET_API } from '../src/api/signing-secret-routes.js';
import { type DeliveryDetail, PORTAL_API, SANDBOX_API, startSandbox } from '../src/index.js';
import { listen } from '../src/server/listen.js';
import { AUTH_KEY, basicAuth, eventually, PASSWORD, tempDir, USERNAME } from './helpers.js';

// The sandbox's wall clock, moved by the test: a rotation's 24 hours pass in one line.
let now = Date.parse('2026-11-21T10:00:00Z');
const HOUR = 3_600_000;
const dir = tempDir();
const logs: string[] = [];
/** Every answer except those of create, rotate and reveal, which are the only ones allowed a secret. */
const otherAnswers: string[] = [];
const secretAnswers: string[] = [];
const seen: { headers: Headers; body: string }[] = [];
let sandbox: Awaited<ReturnType<typeof startSandbox>>;
let receiver: Awaited<ReturnType<typeof listen>>;

async function call(method: string, path: string, body?: unknown, authorization = basicAuth(USERNAME, PASSWORD)) {
  const response = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: { authorization, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const revealing = path === SIGNING_SECRET_API.reveal || path === SIGNING_SECRET_API.rotate;
  (revealing || (path === SIGNING_SECRET_API.secret && method === 'POST') ? secretAnswers : otherAnswers).push(text);
  return { status: response.status, json: JSON.parse(text) as Record<string, unknown> };
}

/** Sends a test event and returns the request the receiver got for it. */
async function testEvent() {
  const result = (await call('POST', PORTAL_API.testEvents, { shape: 'status' })).json;
  expect(result).toMatchObject({ outcome: 'answered', attempt: { status: 200 } });
  const eventId = String(result.eventId);
  const request = await eventually(() => seen.find((r) => r.headers.get(HEADERS.webhookId) === eventId));
  return { eventId, request };
}

const verifies = async (secrets: string[], request: { headers: Headers; body: string }) =>
  (
    await createStandardWebhooksVerifier(secrets, { now: () => Date.now() }).verify(
      {
        id: request.headers.get(HEADERS.webhookId),
        timestamp: request.headers.get(HEADERS.webhookTimestamp),
        signature: request.headers.get(HEADERS.webhookSignature),
      },
      new TextEncoder().encode(request.body),
    )
  ).ok;

beforeAll(async () => {
  const certificate = await createTestCertificate(['127.0.0.1']);
  receiver = await listen(
    async (request) => {
      seen.push({ headers: request.headers, body: await request.text() });
      return new Response('ok');
    },
    { port: 0, host: '127.0.0.1', tls: certificate },
  );
  sandbox = await startSandbox({
    dataDir: dir.path,
    allowLoopbackTargets: true,
    trustedCa: [certificate.cert],
    now: () => now,
    logger: { info: (m, f) => logs.push(m + JSON.stringify(f)), warn: (m) => logs.push(m), error: (m) => logs.push(m) },
  });
  await sandbox.sandbox.addUser(USERNAME, PASSWORD);
  await call('PUT', SANDBOX_API.settings, { webhookUrl: `${receiver.url}/hook`, authKey: AUTH_KEY });
});
afterAll(async () => {
  await sandbox?.close();
  await receiver?.close();
  dir.remove();
});

describe('a company signing secret', () => {
  let first = '';
  let second = '';

  it('is off until created; create answers the secret once (whsec_ + 32 random bytes), a second create is refused', async () => {
    expect((await call('GET', SIGNING_SECRET_API.secret)).json).toEqual({ signing: false, secrets: [] });
    const unsigned = await testEvent();
    expect(unsigned.request.headers.get(HEADERS.webhookSignature)).toBeNull();
    const created = await call('POST', SIGNING_SECRET_API.secret);
    expect(created.status).toBe(201);
    first = String((created.json.secret as { secret: string }).secret);
    expect(first).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(first.slice(6), 'base64')).toHaveLength(32);
    expect(created.json).toMatchObject({
      signing: true,
      secrets: [{ label: 'secret-1', role: 'current', stopsAt: null }],
    });
    expect((await call('POST', SIGNING_SECRET_API.secret)).status).toBe(409);
  });

  it('signs every delivery; the inspector shows the header and the label that made it, never the secret', async () => {
    const { eventId, request } = await testEvent();
    expect(await verifies([first], request)).toBe(true);
    const detail = (await call('GET', `${PORTAL_API.deliveries}/${eventId}`)).json as unknown as DeliveryDetail;
    const header = detail.request.headers.find((h) => h.name === HEADERS.webhookSignature);
    expect(header?.value).toBe(request.headers.get(HEADERS.webhookSignature));
    expect(detail.attemptLog[0]?.signedWith).toEqual([{ label: 'secret-1', createdAt: new Date(now).toISOString() }]);
    const unsigned = (await call('GET', `${PORTAL_API.deliveries}?limit=50`)).json.deliveries as { eventId: string }[];
    const firstEvent = unsigned.at(-1)?.eventId ?? '';
    const plain = (await call('GET', `${PORTAL_API.deliveries}/${firstEvent}`)).json as unknown as DeliveryDetail;
    expect(plain.attemptLog[0]?.signedWith).toBeNull();
  });

  it('rotates with a 24-hour overlap: both signatures, either secret verifies; after the window only the new one', async () => {
    now += 2 * HOUR;
    const rotated = await call('POST', SIGNING_SECRET_API.rotate, {});
    second = String((rotated.json.secret as { secret: string }).secret);
    expect(rotated.json).toMatchObject({
      secrets: [
        { label: 'secret-2', role: 'current' },
        { label: 'secret-1', role: 'previous', stopsAt: new Date(now + 24 * HOUR).toISOString() },
      ],
    });
    const during = await testEvent();
    expect(during.request.headers.get(HEADERS.webhookSignature)?.split(' ')).toHaveLength(2);
    expect(await verifies([second], during.request)).toBe(true);
    expect(await verifies([first], during.request)).toBe(true);

    now += 24 * HOUR + 1;
    expect((await call('GET', SIGNING_SECRET_API.secret)).json).toMatchObject({ secrets: [{ label: 'secret-2' }] });
    const after = await testEvent();
    expect(after.request.headers.get(HEADERS.webhookSignature)?.split(' ')).toHaveLength(1);
    expect(await verifies([second], after.request)).toBe(true);
    expect(await verifies([first], after.request)).toBe(false);

    // A redelivery of an event sent during the overlap is signed with the secrets of today.
    const again = await call('POST', `${PORTAL_API.deliveries}/${during.eventId}/redeliver`);
    expect(again.status).toBe(202);
    const resent = await eventually(() => {
      const all = seen.filter((r) => r.headers.get(HEADERS.webhookId) === during.eventId);
      return all.length === 2 ? all[1] : undefined;
    });
    expect(resent.headers.get(HEADERS.webhookSignature)?.split(' ')).toHaveLength(1);
    expect(await verifies([second], resent)).toBe(true);
  });

  it('ends an overlap now, and reveals the secrets only after the password is given again', async () => {
    await call('POST', SIGNING_SECRET_API.rotate, { overlapSeconds: 3600 });
    expect((await call('GET', SIGNING_SECRET_API.secret)).json.secrets).toHaveLength(2);
    expect((await call('POST', SIGNING_SECRET_API.endOverlap)).json).toMatchObject({
      secrets: [{ label: 'secret-3', role: 'current' }],
    });
    const wrong = await call('POST', SIGNING_SECRET_API.reveal, { password: 'not the password' });
    expect(wrong).toMatchObject({ status: 403, json: { error: { code: 'WRONG_PASSWORD' } } });
    const shown = await call('POST', SIGNING_SECRET_API.reveal, { password: PASSWORD });
    const secrets = shown.json.secrets as { label: string; secret: string }[];
    expect(secrets.map((s) => s.label)).toEqual(['secret-3']);
    expect(secrets[0]?.secret).toMatch(/^whsec_/);
    expect(secrets[0]?.secret).not.toBe(second);
    const bad = await call('POST', SIGNING_SECRET_API.rotate, { overlapSeconds: -1 });
    expect(bad.status).toBe(422);
  });

  it('never puts a secret in another answer or a log line', () => {
    const values = secretAnswers.flatMap((text) => [...text.matchAll(/whsec_[A-Za-z0-9+/=]+/g)].map((m) => m[0]));
    expect(values.length).toBeGreaterThanOrEqual(4);
    expect(otherAnswers.length).toBeGreaterThan(10);
    for (const text of [...otherAnswers, ...logs]) {
      expect(text).not.toMatch(/whsec_/);
      for (const value of values) expect(text).not.toContain(value.slice(6, 30));
    }
  });
});
