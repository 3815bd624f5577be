import { randomBytes } from 'node:crypto';
import { HEADERS } from '@kyc/contracts';
import { createStandardWebhooksVerifier } from '@kyc/webhook-receiver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeliveryEngine, type DeliveryEngine, scaledClock, sqliteDeliveryStore } from '../src/index.js';
import { bodyFor, recordAttempts } from './support/attempts.js';
import {
  contract,
  loopbackOptions,
  type ReceivedRequest,
  startReceiver,
  type TestReceiver,
} from './support/receiver.js';

const secret = () => `whsec_${randomBytes(32).toString('base64')}`;
const ENGINE_SECRET = secret();
const ENDPOINT_SECRET = secret();

let receiver: TestReceiver;
let engine: DeliveryEngine;
const attempts = recordAttempts();

beforeAll(async () => {
  receiver = await startReceiver(() => 200);
  engine = createDeliveryEngine({
    store: sqliteDeliveryStore({ path: ':memory:' }),
    ...(await loopbackOptions()),
    signing: { secret: ENGINE_SECRET },
    onAttempt: attempts.onAttempt,
  });
  await engine.start();
});
afterAll(async () => {
  await engine.stop();
  await receiver.close();
});

const engineVerifierFor = () => createStandardWebhooksVerifier(ENGINE_SECRET);

const signatureOf = (request: ReceivedRequest | undefined) => ({
  id: String(request?.headers[HEADERS.webhookId]),
  timestamp: String(request?.headers[HEADERS.webhookTimestamp]),
  signature: String(request?.headers[HEADERS.webhookSignature]),
});

describe('opt-in Standard Webhooks signing', () => {
  it("is verified by the receiver package's verifier, with the engine secret or an endpoint's own", async () => {
    const plain = await engine.enqueue({ url: receiver.url, body: bodyFor('sig-1') });
    const own = await engine.enqueue({ url: receiver.url, body: bodyFor('sig-2'), signingSecret: ENDPOINT_SECRET });
    await attempts.waitFor(2);
    const byId = (id: string) => receiver.requests.find((r) => r.headers[HEADERS.webhookId] === id);
    const bytes = (request: ReceivedRequest | undefined) => new TextEncoder().encode(request?.body);

    const engineVerifier = createStandardWebhooksVerifier(ENGINE_SECRET);
    const endpointVerifier = createStandardWebhooksVerifier(ENDPOINT_SECRET);
    const first = byId(plain.id);
    const second = byId(own.id);
    expect(await engineVerifier.verify(signatureOf(first), bytes(first))).toEqual({ ok: true, secretIndex: 0 });
    expect(await endpointVerifier.verify(signatureOf(second), bytes(second))).toEqual({ ok: true, secretIndex: 0 });
    // Each event is signed with its own secret only.
    expect(await endpointVerifier.verify(signatureOf(first), bytes(first))).toMatchObject({ ok: false });
    expect(await engineVerifier.verify(signatureOf(second), bytes(second))).toMatchObject({ ok: false });
    // A changed body no longer verifies.
    expect(await engineVerifier.verify(signatureOf(first), new TextEncoder().encode(`${first?.body} `))).toMatchObject({
      ok: false,
      code: 'invalid_signature',
    });
    // The endpoint secret is never readable back.
    expect(JSON.stringify(await engine.getDelivery(own.id))).not.toContain(ENDPOINT_SECRET.slice(6, 20));
  });

  it('signs and sends a body beyond ASCII byte for byte (the SQLite store hands over the bytes it read)', async () => {
    const body = JSON.stringify({ ...JSON.parse(bodyFor('sig-utf8')), note: 'Zoë Ærø – 身份 🪪' });
    const seen = attempts.events.length;
    const { id } = await engine.enqueue({ url: receiver.url, body });
    await attempts.waitFor(seen + 1);
    const request = receiver.requests.find((r) => r.headers[HEADERS.webhookId] === id);
    expect(request?.body).toBe(body);
    expect(Number(request?.headers['content-length'])).toBe(Buffer.byteLength(body));
    expect(await engineVerifierFor().verify(signatureOf(request), new TextEncoder().encode(body))).toEqual({
      ok: true,
      secretIndex: 0,
    });
  });

  it('signs with every secret of a list (a rotation overlap): a receiver with either one verifies', async () => {
    const older = secret();
    const newer = secret();
    const seen = attempts.events.length;
    const { id } = await engine.enqueue({
      url: receiver.url,
      body: bodyFor('sig-4'),
      signingSecret: [older, newer],
    });
    await attempts.waitFor(seen + 1);
    const request = receiver.requests.find((r) => r.headers[HEADERS.webhookId] === id);
    const bytes = new TextEncoder().encode(request?.body);
    const header = String(request?.headers[HEADERS.webhookSignature]);
    expect(header.split(' ')).toHaveLength(2);
    expect(header).toMatch(/^v1,[A-Za-z0-9+/=]+ v1,[A-Za-z0-9+/=]+$/);
    expect(await createStandardWebhooksVerifier(newer).verify(signatureOf(request), bytes)).toEqual({
      ok: true,
      secretIndex: 0,
    });
    expect(await createStandardWebhooksVerifier(older).verify(signatureOf(request), bytes)).toEqual({
      ok: true,
      secretIndex: 0,
    });
    expect(await engineVerifierFor().verify(signatureOf(request), bytes)).toMatchObject({ ok: false });
  });

  it('refuses a bad secret in a list, naming its position and not the secret', async () => {
    const bad = 'whsec_short';
    const refused = engine.enqueue({ url: receiver.url, body: bodyFor('sig-5'), signingSecret: [secret(), bad] });
    await expect(refused).rejects.toThrow(/event\.signingSecret\[1\]: a signing secret must be "whsec_"/);
    await expect(refused).rejects.not.toThrow(/short/);
    await expect(engine.enqueue({ url: receiver.url, body: bodyFor('sig-6'), signingSecret: [] })).rejects.toThrow(
      /event\.signingSecret: a secret or a list of 1–8 secrets/,
    );
  });

  it('signs nothing without a secret', async () => {
    const seen = recordAttempts();
    const local = createDeliveryEngine({
      store: sqliteDeliveryStore({ path: ':memory:' }),
      ...(await loopbackOptions()),
      onAttempt: seen.onAttempt,
    });
    await local.start();
    const { id } = await local.enqueue({ url: receiver.url, body: bodyFor('sig-3') });
    await seen.waitFor(1);
    await local.stop();
    const request = receiver.requests.find((r) => r.headers[HEADERS.webhookId] === id);
    expect(request?.headers[HEADERS.webhookSignature]).toBeUndefined();
    expect(request?.headers[HEADERS.webhookTimestamp]).toMatch(/^\d+$/);
  });
});

describe('the published contract', () => {
  it('judged every signed and unsigned delivery of this file against the OpenAPI webhook', () => {
    expect(contract.counts().webhooks).toBe(receiver.requests.length);
    expect(receiver.requests.length).toBeGreaterThanOrEqual(3);
    contract.assertConforms();
  });

  it('stamps the wall time, also when the schedule runs on a scaled clock, so a receiver verifies it', async () => {
    const fastReceiver = await startReceiver(() => 200);
    // 60× fast: after 10 s the engine's clock is 10 minutes ahead of the wall, past the receiver's
    // 5-minute tolerance, had the timestamp been taken from it.
    const clock = scaledClock(60, { anchor: Date.now() - 10_000 });
    const fast = createDeliveryEngine({
      store: sqliteDeliveryStore({ path: ':memory:' }),
      ...(await loopbackOptions()),
      clock,
      signing: { secret: ENGINE_SECRET },
    });
    try {
      await fast.start();
      await fast.enqueue({ url: fastReceiver.url, body: bodyFor('sig-scaled') });
      await fastReceiver.waitFor(1);
      const [request] = fastReceiver.requests;
      const stamped = Number(request?.headers[HEADERS.webhookTimestamp]);
      expect(Math.abs(stamped - Date.now() / 1000)).toBeLessThan(5);
      const bytes = new TextEncoder().encode(request?.body);
      expect(await engineVerifierFor().verify(signatureOf(request), bytes)).toMatchObject({ ok: true });
    } finally {
      await fast.stop();
      await fastReceiver.close();
    }
  });
});
