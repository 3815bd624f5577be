import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';
import { ownCanonicalJson } from './own-canonical-json.js';
import type { AuditRecord } from './types.js';

// Any primitive a record may hold, strings with quotes, backslashes, control characters, lone
// surrogates and astral characters among them; numbers with fractions, -0, NaN and infinities.
const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('"', '\\', '\u0000', '\ud800', '😀'));
const primitive = fc.oneof(text, fc.double(), fc.integer(), fc.boolean(), fc.constant(null));

const record = fc
  .record({
    receivedAt: primitive,
    outcome: primitive,
    code: primitive,
    httpStatus: primitive,
    webhookId: primitive,
    webhookAttempt: primitive,
    idempotencyKey: primitive,
    sessionId: primitive,
    kycStatus: primitive,
    eventTimestamp: primitive,
    bodySha256: primitive,
    bodyLength: primitive,
    signatureHeaders: fc.record({
      'webhook-id': primitive,
      'webhook-timestamp': primitive,
      'webhook-signature': primitive,
    }),
    signatureVerified: primitive,
    signingSecretIndex: primitive,
    signingSecretLabel: primitive,
    authKeyIndex: primitive,
    authKeyLabel: primitive,
    durationMs: primitive,
    handlerMs: primitive,
  })
  .chain((base) =>
    fc.oneof(
      fc.constant(base),
      text.map((body) => ({ ...base, body })),
      text.map((bodyBase64) => ({ ...base, bodyBase64 })),
    ),
  ) as fc.Arbitrary<AuditRecord>;

const generic = (value: AuditRecord, seq: number, prevHash: string) => canonicalJson({ ...value, v: 1, seq, prevHash });

describe('ownCanonicalJson', () => {
  it('writes exactly what canonicalJson writes for every record of the receiver’s shape', () => {
    fc.assert(
      fc.property(record, fc.nat(), fc.string(), (value, seq, prevHash) => {
        expect(ownCanonicalJson(value, seq, prevHash)).toBe(generic(value, seq, prevHash));
      }),
      { numRuns: 500 },
    );
  });

  it('leaves any other record to canonicalJson: keys missing, added or reordered, and values that are not primitives', () => {
    const base = fc.sample(record, { numRuns: 1, seed: 7 })[0] as AuditRecord & Record<string, unknown>;
    const { sessionId, ...missing } = base;
    const reordered = { sessionId, ...missing };
    const others: unknown[] = [
      missing,
      { ...base, extra: 1 },
      reordered,
      { ...base, body: 'a', bodyBase64: 'b' },
      { ...base, sessionId: { nested: true } },
      { ...base, sessionId: ['a'] },
      { ...base, sessionId: () => 'a' },
      { ...base, sessionId: { toJSON: () => 'a' } },
      { ...base, signatureHeaders: { 'webhook-id': null, 'webhook-signature': null, 'webhook-timestamp': null } },
      { ...base, signatureHeaders: { ...base.signatureHeaders, extra: null } },
      { ...base, signatureHeaders: { ...base.signatureHeaders, 'webhook-id': { a: 1 } } },
      { ...base, signatureHeaders: null },
    ];
    for (const other of others) expect(ownCanonicalJson(other as AuditRecord, 1, 'x')).toBeUndefined();
    expect(ownCanonicalJson(base, 1, 'x')).toBe(generic(base, 1, 'x'));
  });
});
