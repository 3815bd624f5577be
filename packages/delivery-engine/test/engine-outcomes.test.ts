import { createHmac, randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { AUTH_SCHEME, HEADERS, JSON_CONTENT_TYPE, WEBHOOK_RETRY_DELAYS_MS, WEBHOOK_USER_AGENT } from '@kyc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeliveryEngine, type DeliveryEngine, REDACTED, sqliteDeliveryStore } from '../src/index.js';
import { bodyFor, recordAttempts } from './support/attempts.js';
import { loopbackOptions, startReceiver, type TestReceiver } from './support/receiver.js';

const AUTH_KEY = 'Zq8!fT3#pLw6@xN1$vB4';
const SECRET = `whsec_${randomBytes(24).toString('base64')}`;

let receiver: TestReceiver;
let engine: DeliveryEngine;
const attempts = recordAttempts();
let closedPort: number;

beforeAll(async () => {
  receiver = await startReceiver((request) => {
    const match = /^\/(\d{3}|hang)/.exec(request.path);
    if (match?.[1] === 'hang') return 'hang';
    return match === null ? 200 : Number(match[1]);
  });
  const probe = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => probe.once('listening', resolve));
  closedPort = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));
  engine = createDeliveryEngine({
    store: sqliteDeliveryStore({ path: ':memory:' }),
    ...(await loopbackOptions()),
    deadlineMs: 1500,
    concurrency: 32,
    perEndpointConcurrency: 32,
    signing: { secret: SECRET },
    onAttempt: attempts.onAttempt,
  });
  await engine.start();
});
afterAll(async () => {
  await engine.stop({ graceMs: 0 });
  await receiver.close();
});

describe('every outcome leads to the right state', () => {
  const cases: [string, string, string][] = [
    ['200', 'delivered', 'delivered'],
    ['201', 'unexpected_2xx', 'pending'],
    ['202', 'unexpected_2xx', 'pending'],
    ['204', 'unexpected_2xx', 'pending'],
    ['301', 'redirect', 'pending'],
    ['302', 'redirect', 'pending'],
    ['307', 'redirect', 'pending'],
    ['308', 'redirect', 'pending'],
    ['400', 'client_error', 'pending'],
    ['404', 'client_error', 'pending'],
    ['500', 'server_error', 'pending'],
    ['503', 'server_error', 'pending'],
    ['hang', 'timeout', 'pending'],
  ];

  it('classifies each answer, records it and schedules the retry 1 minute later', async () => {
    const ids = new Map<string, string>();
    for (const [path] of cases) {
      const { id } = await engine.enqueue({ url: `${receiver.origin}/${path}`, body: bodyFor(`o-${path}`) });
      ids.set(path, id);
    }
    const refused = await engine.enqueue({ url: `https://127.0.0.1:${closedPort}/hook`, body: bodyFor('o-refused') });
    await attempts.waitFor(cases.length + 1);
    for (const [path, outcome, state] of cases) {
      const record = await engine.getDelivery(ids.get(path) ?? '');
      expect({ path, outcome: record?.lastOutcome, state: record?.state }).toEqual({ path, outcome, state });
      const attempt = record?.attemptLog[0];
      expect(attempt?.dialedAddress).toBe('127.0.0.1');
      if (path !== 'hang') expect(attempt?.status).toBe(Number(path));
      if (state === 'pending') {
        expect((record?.nextAttemptAt ?? 0) - (attempt?.startedAt ?? 0)).toBeGreaterThanOrEqual(
          WEBHOOK_RETRY_DELAYS_MS[0],
        );
      }
    }
    expect((await engine.getDelivery(refused.id))?.lastOutcome).toBe('connect_error');
    // Redirects were not followed.
    expect(receiver.requests.filter((r) => r.path.startsWith('/elsewhere'))).toEqual([]);
  });

  it('records a TLS failure when the receiver is not trusted', async () => {
    const untrusting = recordAttempts();
    const other = createDeliveryEngine({
      store: sqliteDeliveryStore({ path: ':memory:' }),
      allowPrivateNetworks: ['127.0.0.0/8'],
      deadlineMs: 1500,
      onAttempt: untrusting.onAttempt,
    });
    await other.start();
    const { id } = await other.enqueue({ url: receiver.url, body: bodyFor('o-tls') });
    await untrusting.waitFor(1);
    await other.stop();
    expect(await other.getDelivery(id)).toMatchObject({ state: 'pending', lastOutcome: 'tls_error' });
  });
});

describe('headers', () => {
  it('sends the protocol headers, signs, and redacts the Auth Key at write time', async () => {
    const before = receiver.requests.length;
    const { id } = await engine.enqueue({ url: `${receiver.origin}/200`, authKey: AUTH_KEY, body: bodyFor('h-1') });
    await receiver.waitFor(before + 1);
    const request = receiver.requests.find((r) => r.headers[HEADERS.webhookId] === id);
    expect(request?.headers).toMatchObject({
      [HEADERS.authorization]: `${AUTH_SCHEME} ${AUTH_KEY}`,
      [HEADERS.contentType]: JSON_CONTENT_TYPE,
      [HEADERS.userAgent]: WEBHOOK_USER_AGENT,
      [HEADERS.webhookAttempt]: '1',
    });
    const timestamp = String(request?.headers[HEADERS.webhookTimestamp]);
    const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${request?.body}`).digest('base64');
    expect(request?.headers[HEADERS.webhookSignature]).toBe(`v1,${expected}`);
    expect(request?.body).toBe(bodyFor('h-1'));

    let record = await engine.getDelivery(id);
    for (let i = 0; i < 50 && record?.state !== 'delivered'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      record = await engine.getDelivery(id);
    }
    expect(record?.attemptLog[0]?.requestHeaders[HEADERS.authorization]).toBe(`${AUTH_SCHEME} ${REDACTED}`);
    expect(record?.hasAuthKey).toBe(true);
    const everything = JSON.stringify([record, await engine.listDeliveries(), attempts.events]);
    expect(everything).not.toContain(AUTH_KEY);
    expect(everything).not.toContain(AUTH_KEY.slice(0, 8));
    expect(everything).not.toContain(SECRET.slice(6, 20));
  });
});

describe('enqueue refuses bad input with a typed error', () => {
  it('names the problem without echoing a secret', async () => {
    const body = bodyFor('bad-1');
    await expect(engine.enqueue({ url: 'http://127.0.0.1/hook', body })).rejects.toMatchObject({ code: 'invalid_url' });
    await expect(engine.enqueue({ url: 'https://10.0.0.1/hook', body })).rejects.toMatchObject({ code: 'invalid_url' });
    await expect(engine.enqueue({ url: receiver.url, body: '{"nope":1}' })).rejects.toMatchObject({
      code: 'invalid_event',
    });
    await expect(engine.enqueue({ url: receiver.url, body: 'not json' })).rejects.toMatchObject({
      code: 'invalid_event',
    });
    const badKey = 'secret-part\r\nX-Evil: 1';
    const error = await engine.enqueue({ url: receiver.url, body, authKey: badKey }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'invalid_auth_key' });
    expect(String((error as Error).message)).not.toContain('secret-part');
    await expect(engine.enqueue({ url: receiver.url, body, signingSecret: 'plain' })).rejects.toMatchObject({
      code: 'invalid_option',
    });
    expect(() => createDeliveryEngine({ store: sqliteDeliveryStore({ path: ':memory:' }), leaseMs: 10 })).toThrow(
      /leaseMs/,
    );
  });

  it('is idempotent per event id and refuses the same id with another body', async () => {
    const first = await engine.enqueue({ id: 'evt-fixed-1', url: `${receiver.origin}/500`, body: bodyFor('dup') });
    const again = await engine.enqueue({ id: 'evt-fixed-1', url: `${receiver.origin}/500`, body: bodyFor('dup') });
    expect([first.created, again.created]).toEqual([true, false]);
    await expect(
      engine.enqueue({ id: 'evt-fixed-1', url: `${receiver.origin}/500`, body: bodyFor('other') }),
    ).rejects.toMatchObject({ code: 'event_id_conflict' });
  });

  it('lists deliveries by state and URL', async () => {
    const delivered = await engine.listDeliveries({ state: 'delivered' });
    expect(delivered.length).toBeGreaterThan(0);
    expect(delivered.every((d) => d.state === 'delivered')).toBe(true);
    const byUrl = await engine.listDeliveries({ url: `${receiver.origin}/404` });
    expect(byUrl.map((d) => d.lastOutcome)).toEqual(['client_error']);
    await expect(engine.listDeliveries({ state: 'bogus' as 'failed' })).rejects.toMatchObject({
      code: 'invalid_option',
    });
  });
});
