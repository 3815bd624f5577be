import { KycAuthenticationError, KycClient, KycNotFoundError } from '@kyc/client';
import {
  apiErrorBodySchema,
  HEADERS,
  sessionDetailsSchema,
  webhookCombinedSchema,
  webhookStatusSchema,
  webhookV1Schema,
} from '@kyc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_API } from '../src/index.js';
import {
  AUTH_KEY,
  api,
  basicAuth,
  contract,
  eventually,
  PASSWORD,
  startTestReceiver,
  startTestSandbox,
  USERNAME,
} from './helpers.js';

let receiver: Awaited<ReturnType<typeof startTestReceiver>>;
let sandbox: Awaited<ReturnType<typeof startTestSandbox>>;
let client: KycClient;

beforeAll(async () => {
  receiver = await startTestReceiver();
  sandbox = await startTestSandbox({ ca: receiver.certificate.cert });
  const saved = await api(sandbox.url, 'PUT', SANDBOX_API.settings, {
    body: { webhookUrl: receiver.url, authKey: AUTH_KEY },
  });
  expect(saved.status).toBe(200);
  client = new KycClient({
    fetch: contract.fetch,
    baseUrl: sandbox.url,
    username: USERNAME,
    password: PASSWORD,
    maxRetries: 0,
  });
});
afterAll(async () => {
  await sandbox?.close();
  await receiver?.close();
});

async function newSession(body: Record<string, unknown> = {}): Promise<string> {
  const created = await api(sandbox.url, 'POST', SANDBOX_API.sessions, { body });
  expect(created.status).toBe(201);
  return sessionDetailsSchema.parse(created.json).id;
}

describe('HTTP Basic on every request', () => {
  it('answers 401 with the same body for no credentials, a wrong password and an unknown user', async () => {
    const answers = await Promise.all([
      api(sandbox.url, 'GET', `/api/v1/kyc/session/sess_x`, { authorization: null }),
      api(sandbox.url, 'GET', `/api/v1/kyc/session/sess_x`, { authorization: basicAuth(USERNAME, 'wrong password') }),
      api(sandbox.url, 'GET', `/api/v1/kyc/session/sess_x`, { authorization: basicAuth('mallory', PASSWORD) }),
      api(sandbox.url, 'GET', SANDBOX_API.settings, { authorization: 'Bearer something' }),
    ]);
    for (const answer of answers) {
      expect(answer.status).toBe(401);
      expect(apiErrorBodySchema.parse(answer.json).error.code).toBe('UNAUTHORIZED');
      expect(answer.headers.get(HEADERS.wwwAuthenticate)).toMatch(/^Basic realm=/);
      expect(answer.headers.get(HEADERS.requestId)).toMatch(/\S+/);
      expect(answer.text).not.toContain(PASSWORD);
    }
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
  });

  it('throttles password guessing per username with 429 and Retry-After, for unknown users too', async () => {
    const guess = () =>
      api(sandbox.url, 'GET', SANDBOX_API.settings, { authorization: basicAuth('nobody-here', 'guess') });
    for (let i = 0; i < 10; i++) expect((await guess()).status).toBe(401);
    const blocked = await guess();
    expect(blocked.status).toBe(429);
    expect(apiErrorBodySchema.parse(blocked.json).error.code).toBe('RATE_LIMITED');
    expect(Number(blocked.headers.get(HEADERS.retryAfter))).toBeGreaterThan(0);
    // Other users are not affected.
    expect((await api(sandbox.url, 'GET', SANDBOX_API.settings)).status).toBe(200);
  });

  it('surfaces as KycAuthenticationError in the client', async () => {
    const wrong = new KycClient({
      fetch: contract.fetch,
      baseUrl: sandbox.url,
      username: USERNAME,
      password: 'not the password',
      maxRetries: 0,
    });
    const error = await wrong.getSession('sess_x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KycAuthenticationError);
    expect(String(error)).not.toContain('not the password');
  });
});

describe('session API', () => {
  it('answers 404 SESSION_NOT_FOUND for an unknown session, through the client and raw', async () => {
    await expect(client.getSession('sess_does_not_exist')).rejects.toBeInstanceOf(KycNotFoundError);
    await expect(client.finishSession('sess_does_not_exist')).rejects.toBeInstanceOf(KycNotFoundError);
    const raw = await api(sandbox.url, 'GET', '/api/v1/kyc/session/sess_does_not_exist');
    expect(raw.status).toBe(404);
    expect(apiErrorBodySchema.parse(raw.json).error.code).toBe('SESSION_NOT_FOUND');
    expect(raw.headers.get(HEADERS.requestId)).toBeTruthy();
  });

  it('rejects a body that is not JSON (400) and one without a session id (422)', async () => {
    const notJson = await api(sandbox.url, 'POST', '/api/v1/kyc/session/finish', { raw: 'sessionId=1' });
    expect(notJson.status).toBe(400);
    expect(apiErrorBodySchema.parse(notJson.json).error.code).toBe('INVALID_REQUEST');
    const noId = await api(sandbox.url, 'POST', '/api/v1/kyc/session/finish', { body: { session: 'x' } });
    expect(noId.status).toBe(422);
    expect(apiErrorBodySchema.parse(noId.json).error.code).toBe('UNPROCESSABLE');
  });

  it('reads an in-progress session without its result', async () => {
    const id = await newSession({ status: 'REJECTED' });
    const details = await client.getSession(id);
    expect(sessionDetailsSchema.parse(details)).toMatchObject({ id, state: 'IN_PROGRESS' });
    expect(details.status).toBeUndefined();
  });

  it('finishes idempotently: the same 200 details twice and exactly one webhook at the receiver', async () => {
    const id = await newSession({ status: 'APPROVED', shape: 'both' });
    const first = await client.finishSession(id);
    const second = await client.finishSession(id);
    expect(sessionDetailsSchema.parse(first)).toMatchObject({ id, state: 'FINISHED', status: 'APPROVED' });
    expect(second).toEqual(first);
    expect(await client.getSession(id)).toEqual(first);
    const seen = await eventually(() => {
      const hits = receiver.requests.filter((r) => r.body.includes(id));
      return hits.length > 0 ? hits : undefined;
    });
    // Give a wrongly queued second webhook time to arrive before counting.
    const delivery = await eventually(async () => {
      const view = await api(sandbox.url, 'GET', `${SANDBOX_API.sessions}/${id}/delivery`);
      return (view.json as { state?: string }).state === 'delivered' ? view.json : undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.requests.filter((r) => r.body.includes(id))).toHaveLength(1);
    expect(receiver.events.filter((e) => e.sessionId === id)).toHaveLength(1);
    const request = seen[0];
    expect(request?.status).toBe(200);
    expect(request?.headers.get(HEADERS.authorization)).toBe(`Bearer ${AUTH_KEY}`);
    expect(request?.headers.get(HEADERS.userAgent)).toBe('Service-Webhook/1.0');
    expect(request?.headers.get(HEADERS.webhookId)).toBe((delivery as { eventId: string }).eventId);
    const body = webhookCombinedSchema.parse(JSON.parse(request?.body ?? ''));
    expect(body).toMatchObject({ id, sessionId: id, status: 'APPROVED', detailsURL: first.detailsURL });
    expect(body.endedAt).toBe(first.endedAt);
  });

  it('sends one webhook when the same session is finished by several concurrent requests', async () => {
    const id = await newSession({ status: 'PENDING', shape: 'status' });
    const answers = await Promise.all(Array.from({ length: 6 }, () => client.finishSession(id)));
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    await eventually(async () => {
      const view = await api(sandbox.url, 'GET', `${SANDBOX_API.sessions}/${id}/delivery`);
      return (view.json as { state?: string }).state === 'delivered' ? true : undefined;
    });
    const list = await api(sandbox.url, 'GET', SANDBOX_API.deliveries);
    const forSession = (list.json as { deliveries: { sessionId: string }[] }).deliveries.filter(
      (d) => d.sessionId === id,
    );
    expect(forSession).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.requests.filter((r) => r.body.includes(id))).toHaveLength(1);
  });

  it('accepts {"id"} as well as {"sessionId"} and sends the chosen payload shape', async () => {
    const v1 = await newSession({ status: 'PENDING', shape: 'v1' });
    const status = await newSession({ status: 'ERROR', shape: 'status' });
    const finished = await api(sandbox.url, 'POST', '/api/v1/kyc/session/finish', { body: { id: v1 } });
    expect(finished.status).toBe(200);
    expect(sessionDetailsSchema.parse(finished.json)).toMatchObject({
      id: v1,
      status: 'PENDING',
      validation: 'MANUAL',
    });
    await client.finishSession(status);
    const [v1Body, statusBody] = await eventually(() => {
      const a = receiver.requests.find((r) => r.body.includes(v1));
      const b = receiver.requests.find((r) => r.body.includes(status));
      return a && b ? [JSON.parse(a.body), JSON.parse(b.body)] : undefined;
    });
    expect(webhookV1Schema.strict().safeParse(v1Body).success).toBe(true);
    expect(webhookStatusSchema.strict().safeParse(statusBody).success).toBe(true);
    expect(statusBody).toMatchObject({ sessionId: status, status: 'ERROR' });
  });

  it('keeps companies apart: another company gets 404 for this session', async () => {
    await sandbox.running.sandbox.addUser('bob', 'another long password', { company: 'Other Co' });
    const id = await newSession();
    const other = new KycClient({
      fetch: contract.fetch,
      baseUrl: sandbox.url,
      username: 'bob',
      password: 'another long password',
      maxRetries: 0,
    });
    await expect(other.getSession(id)).rejects.toBeInstanceOf(KycNotFoundError);
    await expect(other.finishSession(id)).rejects.toBeInstanceOf(KycNotFoundError);
    expect((await client.getSession(id)).state).toBe('IN_PROGRESS');
  });
});

describe('webhook settings', () => {
  it('refuses what the engine refuses, with its messages, and never returns the key', async () => {
    const insecure = await api(sandbox.url, 'PUT', SANDBOX_API.settings, {
      body: { webhookUrl: 'http://example.com/hook', authKey: 'password1234password' },
    });
    expect(insecure.status).toBe(422);
    const fields = (insecure.json as { error: { fields: { field: string; message: string }[] } }).error.fields;
    expect(fields.map((f) => f.field).sort()).toEqual(['authKey', 'webhookUrl']);
    expect(insecure.text).not.toContain('password1234password');
    const current = await api(sandbox.url, 'GET', SANDBOX_API.settings);
    expect(current.json).toEqual({ webhookUrl: receiver.url, hasAuthKey: true });
    expect(current.text).not.toContain(AUTH_KEY);
  });
});

describe('the published contract', () => {
  it('judged every answer and webhook of this suite against the OpenAPI document', () => {
    // Runs last in this file: the suites above made dozens of calls and several deliveries.
    const seen = contract.counts();
    expect(seen.responses).toBeGreaterThan(20);
    expect(seen.webhooks).toBeGreaterThan(0);
    contract.assertConforms();
  });
});
