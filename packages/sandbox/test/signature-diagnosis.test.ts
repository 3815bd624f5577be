import { randomBytes, randomUUID } from 'node:crypto';
import { SIGNING_SECRET_PREFIX } from '@kyc/contracts';
import { createTestCertificate } from '@kyc/test-support';
import { createWebhookReceiver } from '@kyc/webhook-receiver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNING_SECRET_API } from '../src/api/signing-secret-routes.js';
import { checkEndpoint, type DeliveryDetail, PORTAL_API, SANDBOX_API, startSandbox } from '../src/index.js';
import { listen } from '../src/server/listen.js';
import { AUTH_KEY, basicAuth, PASSWORD, tempDir, USERNAME } from './helpers.js';

// An endpoint that checks the Auth Key (the right one) and verifies signatures with a secret
// the service no longer signs with: its 401 says `invalid_signature`. Before, the inspector and
// check-endpoint explained every 401 as "must accept Authorization: Bearer <Auth Key>".

const OLD_SECRET = `${SIGNING_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
const dir = tempDir();
let certificate: Awaited<ReturnType<typeof createTestCertificate>>;
let sandbox: Awaited<ReturnType<typeof startSandbox>>;
let endpoint: Awaited<ReturnType<typeof listen>>;

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: {
      authorization: basicAuth(USERNAME, PASSWORD),
      'content-type': 'application/json',
      'idempotency-key': randomUUID(),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await response.json()) as Record<string, unknown>;
}

beforeAll(async () => {
  certificate = await createTestCertificate(['127.0.0.1']);
  const receiver = createWebhookReceiver({
    authKeys: [AUTH_KEY],
    signingSecrets: [OLD_SECRET],
    logger: {},
    onEvent: () => undefined,
  });
  endpoint = await listen((request) => receiver.handle(request), { port: 0, host: '127.0.0.1', tls: certificate });
  sandbox = await startSandbox({ dataDir: dir.path, allowLoopbackTargets: true, trustedCa: [certificate.cert] });
  await sandbox.sandbox.addUser(USERNAME, PASSWORD);
  await call('PUT', SANDBOX_API.settings, { webhookUrl: `${endpoint.url}/hook`, authKey: AUTH_KEY });
});
afterAll(async () => {
  await sandbox?.close();
  await endpoint?.close();
  dir.remove();
});

describe('a 401 for the signature, not the key', () => {
  it('the attempt inspector says what the answer says: the endpoint may hold an old signing secret', async () => {
    await call('POST', SIGNING_SECRET_API.secret);
    const result = await call('POST', PORTAL_API.testEvents, { shape: 'status' });
    expect(result).toMatchObject({ outcome: 'answered', attempt: { status: 401 } });
    const detail = (await call(
      'GET',
      `${PORTAL_API.deliveries}/${String(result.eventId)}`,
    )) as unknown as DeliveryDetail;
    const diagnosis = detail.attemptLog[0]?.diagnosis;
    expect(diagnosis?.message).toMatch(/refused the webhook signature \(401\), not the Auth Key/);
    expect(diagnosis?.message).toMatch(/may hold an old one/);
    expect(diagnosis?.message).not.toMatch(/Authorization: Bearer/);
  });

  it('check-endpoint with the current secret tells the same to each probe the endpoint refused', async () => {
    const current = `${SIGNING_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
    const report = await checkEndpoint(`${endpoint.url}/hook`, {
      authKey: AUTH_KEY,
      signingSecret: current,
      ca: [certificate.cert],
      allowLoopback: true,
    });
    const accepts = report.results.find((r) => r.id === 'accepts-v1');
    expect(accepts?.verdict).toBe('fail');
    expect(accepts?.fix).toMatch(/refused the webhook signature \(401\), not the Auth Key.*may hold an old one/);
    expect(accepts?.fix).not.toMatch(/Authorization: Bearer/);
    expect(JSON.stringify(report)).not.toContain(current.slice(SIGNING_SECRET_PREFIX.length, 20));
  });
});
