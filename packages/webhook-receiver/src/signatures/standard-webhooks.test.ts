import { HEADERS, sampleStatusWebhook } from '@kyc/contracts';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it, vi } from 'vitest';
import { AUTH_KEY } from '../../test/support/receiver-table.js';
import { createWebhookReceiver } from '../index.js';
import { createStandardWebhooksVerifier } from './standard-webhooks.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const NEXT_SECRET = 'whsec_c2Vjb25kLXNlY3JldC1mb3Itcm90YXRpb24=';
const OTHER_SECRET = 'whsec_b3RoZXItc2VjcmV0LW5vdC1jb25maWd1cmVk';
const body = JSON.stringify(sampleStatusWebhook);
const bytes = new TextEncoder().encode(body);

/** Signs with the reference `standardwebhooks` package. */
function sign(secret: string, id: string, at: Date, payload = body) {
  const signature = new Webhook(secret).sign(id, at, payload);
  return { id, timestamp: String(Math.floor(at.getTime() / 1000)), signature };
}

describe('Standard Webhooks interop (signatures made by the standardwebhooks package)', () => {
  const verifier = createStandardWebhooksVerifier([NEXT_SECRET, SECRET]);

  it('verifies a valid signature, with either rotation secret', async () => {
    expect(await verifier.verify(sign(SECRET, 'msg_1', new Date()), bytes)).toEqual({ ok: true, secretIndex: 1 });
    expect(await verifier.verify(sign(NEXT_SECRET, 'msg_1', new Date()), bytes)).toEqual({ ok: true, secretIndex: 0 });
  });

  it('accepts when any of several listed signatures is valid', async () => {
    const good = sign(SECRET, 'msg_2', new Date());
    const bad = sign(OTHER_SECRET, 'msg_2', new Date());
    expect(await verifier.verify({ ...good, signature: `${bad.signature} ${good.signature}` }, bytes)).toEqual({
      ok: true,
      secretIndex: 1,
    });
  });

  it('refuses a tampered body, a changed id, a wrong secret, a stale or future timestamp, and garbage', async () => {
    const signed = sign(SECRET, 'msg_3', new Date());
    const tampered = new TextEncoder().encode(body.replace('APPROVED', 'REJECTED'));
    expect(await verifier.verify(signed, tampered)).toEqual({ ok: false, code: 'invalid_signature' });
    expect(await verifier.verify({ ...signed, id: 'msg_4' }, bytes)).toEqual({ ok: false, code: 'invalid_signature' });
    expect(await verifier.verify(sign(OTHER_SECRET, 'msg_3', new Date()), bytes)).toEqual({
      ok: false,
      code: 'invalid_signature',
    });
    const stale = sign(SECRET, 'msg_3', new Date(Date.now() - 10 * 60 * 1000));
    expect(await verifier.verify(stale, bytes)).toEqual({ ok: false, code: 'stale_signature' });
    const future = sign(SECRET, 'msg_3', new Date(Date.now() + 10 * 60 * 1000));
    expect(await verifier.verify(future, bytes)).toEqual({ ok: false, code: 'stale_signature' });
    expect(await verifier.verify({ ...signed, signature: 'v1,!!!' }, bytes)).toEqual({
      ok: false,
      code: 'invalid_signature',
    });
    expect(await verifier.verify({ ...signed, signature: 'v2,abc' }, bytes)).toEqual({
      ok: false,
      code: 'invalid_signature',
    });
    expect(await verifier.verify({ ...signed, timestamp: 'soon' }, bytes)).toEqual({
      ok: false,
      code: 'invalid_signature',
    });
    expect(await verifier.verify({ ...signed, signature: null }, bytes)).toEqual({
      ok: false,
      code: 'missing_signature',
    });
  });

  it('never throws and never accepts forged headers (property)', async () => {
    const now = Math.floor(Date.now() / 1000);
    await fc.assert(
      fc.asyncProperty(
        fc.option(fc.string({ maxLength: 40 }), { nil: undefined }),
        fc.oneof(fc.constant(String(now)), fc.string({ maxLength: 20 }), fc.integer().map(String)),
        fc.oneof(
          fc.string({ maxLength: 200 }),
          fc.uint8Array({ minLength: 32, maxLength: 32 }).map((mac) => `v1,${btoa(String.fromCharCode(...mac))}`),
          fc
            .array(fc.base64String({ maxLength: 60 }), { maxLength: 12 })
            .map((list) => list.map((entry) => `v1,${entry}`).join(' ')),
        ),
        fc.uint8Array({ maxLength: 300 }),
        async (id, timestamp, signature, payload) => {
          const result = await verifier.verify({ id, timestamp, signature }, payload);
          expect(result.ok).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses a secret that is not base64 without echoing it', () => {
    expect(() => createStandardWebhooksVerifier(['whsec_@@@@'])).toThrow(/signingSecrets\[0\] is not base64/);
    try {
      createStandardWebhooksVerifier(['whsec_@@@@']);
    } catch (error) {
      expect(String(error)).not.toContain('@@@@');
    }
  });

  it('makes the receiver answer 401 for a bad signature and 200 for a good one', async () => {
    let runs = 0;
    const receiver = createWebhookReceiver({
      authKeys: AUTH_KEY,
      signingSecrets: SECRET,
      logger: {},
      onEvent: () => void runs++,
    });
    const deliver = (signed: ReturnType<typeof sign>, payload = body) =>
      receiver.handle(
        new Request('http://r.test/', {
          method: 'POST',
          body: payload,
          headers: {
            [HEADERS.authorization]: `Bearer ${AUTH_KEY}`,
            [HEADERS.webhookId]: signed.id,
            [HEADERS.webhookTimestamp]: signed.timestamp,
            [HEADERS.webhookSignature]: signed.signature,
          },
        }),
      );
    const tampered = await deliver(sign(SECRET, 'msg_9', new Date()), body.replace('APPROVED', 'REJECTED'));
    expect(tampered.status).toBe(401);
    expect(tampered.headers.get(HEADERS.wwwAuthenticate)).toBe('Bearer');
    expect((await deliver(sign(OTHER_SECRET, 'msg_9', new Date()))).status).toBe(401);
    expect(runs).toBe(0);
    expect((await deliver(sign(SECRET, 'msg_9', new Date()))).status).toBe(200);
    expect(runs).toBe(1);
  });

  it('answers 401 (not a crash) when Web Crypto itself fails during verification', async () => {
    let runs = 0;
    const logged: string[] = [];
    const receiver = createWebhookReceiver({
      authKeys: AUTH_KEY,
      signingSecrets: SECRET,
      logger: { error: (message) => void logged.push(message) },
      onEvent: () => void runs++,
    });
    const signed = sign(SECRET, 'msg_10', new Date());
    // Fault injection: the platform's HMAC fails once (as on a runtime without it).
    const verify = vi.spyOn(crypto.subtle, 'verify').mockRejectedValueOnce(new Error('HMAC unavailable'));
    try {
      const response = await receiver.handle(
        new Request('http://r.test/', {
          method: 'POST',
          body,
          headers: {
            [HEADERS.authorization]: `Bearer ${AUTH_KEY}`,
            [HEADERS.webhookId]: signed.id,
            [HEADERS.webhookTimestamp]: signed.timestamp,
            [HEADERS.webhookSignature]: signed.signature,
          },
        }),
      );
      expect(response.status).toBe(401);
      expect(runs).toBe(0);
      expect(logged).toEqual(['signature verification failed to run']);
    } finally {
      verify.mockRestore();
    }
  });
});
