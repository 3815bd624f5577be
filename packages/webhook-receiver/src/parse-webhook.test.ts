import {
  sampleCombinedWebhook,
  sampleSnakeCaseStatusWebhook,
  sampleStatusWebhook,
  sampleTitleCaseStatusWebhook,
  sampleV1Webhook,
} from '@kyc/contracts';
import fc from 'fast-check';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type KycWebhookEvent, parseWebhook, safeParseWebhook } from './parse-webhook.js';
import { WebhookError } from './webhook-error.js';

const text = (value: unknown) => JSON.stringify(value);
const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

function errorOf(run: () => unknown): WebhookError {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookError) return error;
    throw error;
  }
  throw new Error('expected a WebhookError');
}

describe('parseWebhook', () => {
  it('reads each shape from a string, a Uint8Array and an ArrayBuffer', () => {
    const v1 = parseWebhook(bytes(sampleV1Webhook));
    expect(v1.shape).toBe('v1');
    if (v1.shape === 'v1') {
      expect(v1.scores?.total).toBe(95.4);
      expect(v1.endedAt).toEqual(new Date(sampleV1Webhook.endedAt));
      expect(v1.durationMs).toBe(95_000);
    }
    const status = parseWebhook(text(sampleStatusWebhook));
    expect(status.shape).toBe('status');
    if (status.shape === 'status') expect(status.status).toBe('APPROVED');
    const both = parseWebhook(bytes(sampleCombinedWebhook).buffer as ArrayBuffer);
    expect(both.shape).toBe('both');
    if (both.shape === 'both') expect([both.status, both.scores?.total]).toEqual(['APPROVED', 95.4]);
    for (const sample of [sampleSnakeCaseStatusWebhook, sampleTitleCaseStatusWebhook]) {
      expect(parseWebhook(text(sample)).sessionId).toBe(sampleStatusWebhook.sessionId);
    }
    expect(status.issues).toEqual([]);
    expect(status.raw).toEqual(sampleStatusWebhook);
  });

  it('keys events by Webhook-Id when given, else by session + status + time, never by session alone', () => {
    expect(parseWebhook(text(sampleStatusWebhook), { webhookId: 'evt_1' })).toMatchObject({
      idempotencyKey: 'id:evt_1',
      webhookId: 'evt_1',
    });
    const approved = parseWebhook(text(sampleStatusWebhook));
    const pending = parseWebhook(text({ ...sampleStatusWebhook, status: 'PENDING' }));
    const later = parseWebhook(text({ ...sampleStatusWebhook, timestamp: '2026-11-22T08:00:00.000Z' }));
    expect(new Set([approved.idempotencyKey, pending.idempotencyKey, later.idempotencyKey]).size).toBe(3);
    expect(approved.idempotencyKey).toBe(parseWebhook(bytes(sampleStatusWebhook)).idempotencyKey);
    const v1 = parseWebhook(text(sampleV1Webhook));
    const v1Later = parseWebhook(text({ ...sampleV1Webhook, endedAt: '2026-11-22T08:00:00.000Z' }));
    expect(v1.idempotencyKey).not.toBe(v1Later.idempotencyKey);
    expect(v1.idempotencyKey).toContain(sampleV1Webhook.endedAt.replaceAll(':', '%3A'));
    const v1Manual = parseWebhook(text({ ...sampleV1Webhook, validation: 'MANUAL' }));
    const v1Automatic = parseWebhook(text({ ...sampleV1Webhook, validation: 'AUTOMATIC' }));
    expect(v1Manual.idempotencyKey).not.toBe(v1Automatic.idempotencyKey);
    expect(v1.idempotencyKey).toBe(parseWebhook(bytes(sampleV1Webhook)).idempotencyKey);
    const timeless = parseWebhook(text({ sessionId: 's1', status: 'PENDING' }));
    const timeless2 = parseWebhook(text({ sessionId: 's1', status: 'PENDING', note: 'manual' }));
    expect(timeless.idempotencyKey).not.toBe(timeless2.idempotencyKey);
    expect(timeless.idempotencyKey).not.toBe('s1');
  });

  it('bounds the idempotency key of a huge Webhook-Id, keeping distinct ids distinct', () => {
    const long = 'x'.repeat(10_000);
    const first = parseWebhook(text(sampleStatusWebhook), { webhookId: `${long}a` }).idempotencyKey;
    const second = parseWebhook(text(sampleStatusWebhook), { webhookId: `${long}b` }).idempotencyKey;
    expect(first.length).toBeLessThanOrEqual(512);
    expect(first).not.toBe(second);
  });

  it('narrows the event type on shape (checked by the type checker)', () => {
    const event: KycWebhookEvent = parseWebhook(text(sampleCombinedWebhook));
    if (event.shape === 'v1') {
      expectTypeOf(event.status).toEqualTypeOf<undefined>();
      expectTypeOf(event.scores).not.toEqualTypeOf<undefined>();
    } else if (event.shape === 'status') {
      expectTypeOf(event.scores).toEqualTypeOf<undefined>();
      expectTypeOf(event.status).toEqualTypeOf<'APPROVED' | 'REJECTED' | 'PENDING' | 'ERROR' | undefined>();
    } else {
      expectTypeOf(event.shape).toEqualTypeOf<'both'>();
      expectTypeOf(event.endedAt).toEqualTypeOf<Date | undefined>();
      expectTypeOf(event.timestamp).toEqualTypeOf<Date | undefined>();
      expect(event.status).toBe('APPROVED');
    }
    expectTypeOf(event.sessionId).toEqualTypeOf<string>();
    expectTypeOf(event.idempotencyKey).toEqualTypeOf<string>();
  });

  it('refuses an already-parsed object and says how to fix it', () => {
    const error = errorOf(() => parseWebhook(sampleStatusWebhook as never));
    expect(error.code).toBe('parsed_body');
    expect(error.issues).toEqual([{ path: [], message: 'already parsed into Object; the raw body is required' }]);
    expect(error.message).toMatch(/raw body/);
    expect(error.message).toMatch(/express\.raw/);
  });

  it.each([
    ['invalid_encoding', new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])],
    ['invalid_json', '{"id":'],
    ['invalid_json', ''],
    ['not_an_object', '"text"'],
    ['missing_session_id', '{"status":"APPROVED"}'],
    ['conflicting_session_id', '{"id":"a","sessionId":"b"}'],
    ['invalid_body_type', 42],
    ['invalid_body_type', new DataView(new ArrayBuffer(2))],
  ])('refuses with code %s', (code, body) => {
    const error = errorOf(() => parseWebhook(body as string));
    expect(error.code).toBe(code);
    expect(error.issues.length).toBeGreaterThan(0);
    for (const issue of error.issues) expect(Array.isArray(issue.path) && issue.message.length > 0).toBe(true);
  });

  it('reads U+FFFD sent as valid UTF-8, and refuses invalid bytes wherever they are', () => {
    const encoder = new TextEncoder();
    const valid = encoder.encode('{"sessionId":"s\uFFFD1"}');
    expect(parseWebhook(valid).sessionId).toBe('s\uFFFD1');
    expect(parseWebhook(valid.buffer as ArrayBuffer).sessionId).toBe('s\uFFFD1');
    fc.assert(
      fc.property(
        fc.string(),
        fc.nat(),
        fc.constantFrom(0x80, 0xbf, 0xc0, 0xc3, 0xe2, 0xed, 0xf0, 0xf5, 0xff),
        (name, at, byte) => {
          const bytes = encoder.encode(JSON.stringify({ sessionId: 's1', name }));
          const broken = new Uint8Array(bytes.length + 1);
          const cut = at % (bytes.length + 1);
          broken.set(bytes.subarray(0, cut));
          broken[cut] = byte;
          broken.set(bytes.subarray(cut), cut + 1);
          let fatal: string | undefined;
          try {
            fatal = new TextDecoder('utf-8', { fatal: true }).decode(broken);
          } catch {
            fatal = undefined;
          }
          const result = safeParseWebhook(broken);
          if (fatal === undefined) expect(result.success || result.error.code).toBe('invalid_encoding');
          else expect(result.success || result.error.code).not.toBe('invalid_encoding');
        },
      ),
    );
  });

  it('keeps the body out of a JSON error (message and cause): it may carry personal data', () => {
    const error = errorOf(() => parseWebhook('{"name":"Ana Secretname", oops}'));
    expect(error.code).toBe('invalid_json');
    expect(error.cause).toBeUndefined();
    expect(`${error.message} ${JSON.stringify(error.issues)}`).not.toContain('Secretname');
  });

  it('strict mode turns any issue into a rejection with the issues and their paths', () => {
    const partial = text({ sessionId: 's1', status: 'approved' });
    expect(parseWebhook(partial).issues.length).toBeGreaterThan(0);
    const error = errorOf(() => parseWebhook(partial, { strict: true }));
    expect(error.code).toBe('strict_violation');
    expect(error.issues.some((issue) => issue.path.join('.') === 'status')).toBe(true);
    expect(parseWebhook(text(sampleStatusWebhook), { strict: true }).shape).toBe('status');
  });

  it('safeParseWebhook returns the error instead of throwing', () => {
    const failed = safeParseWebhook('nope');
    expect(failed.success).toBe(false);
    if (!failed.success) expect(failed.error.code).toBe('invalid_json');
    const ok = safeParseWebhook(text(sampleV1Webhook));
    expect(ok.success && ok.event.sessionId).toBe(sampleV1Webhook.id);
  });

  it('never throws anything but a WebhookError on arbitrary bytes, text and JSON (property)', () => {
    const inputs = fc.oneof(
      fc.uint8Array({ maxLength: 512 }),
      fc.string({ unit: 'binary', maxLength: 512 }),
      fc.jsonValue().map((value) => JSON.stringify(value)),
      fc.anything(),
      fc
        .record({ sessionId: fc.jsonValue(), status: fc.jsonValue(), timestamp: fc.jsonValue(), id: fc.jsonValue() })
        .map(text),
    );
    fc.assert(
      fc.property(inputs, fc.boolean(), (input, strict) => {
        const result = safeParseWebhook(input as string, { strict });
        if (result.success) expect(result.event.idempotencyKey.length).toBeGreaterThan(0);
        else expect(result.error).toBeInstanceOf(WebhookError);
      }),
      { numRuns: 500 },
    );
  });
});
