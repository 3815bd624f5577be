import { HEADERS } from '@kyc/contracts/webhook-reader';
import type { AuditRecord } from './types.js';

/** The keys of a record as `buildAuditRecord` writes them, in its order, before the optional body. */
const RECORD_KEYS = [
  'receivedAt',
  'outcome',
  'code',
  'httpStatus',
  'webhookId',
  'webhookAttempt',
  'idempotencyKey',
  'sessionId',
  'kycStatus',
  'eventTimestamp',
  'bodySha256',
  'bodyLength',
  'signatureHeaders',
  'signatureVerified',
  'signingSecretIndex',
  'signingSecretLabel',
  'authKeyIndex',
  'authKeyLabel',
  'durationMs',
  'handlerMs',
] as const;
const HEADER_KEYS = [HEADERS.webhookId, HEADERS.webhookTimestamp, HEADERS.webhookSignature] as const;
// A record has no body, a UTF-8 body or a base64 body: three shapes, known when the module loads.
const SHAPES: readonly (readonly string[])[] = [RECORD_KEYS, [...RECORD_KEYS, 'body'], [...RECORD_KEYS, 'bodyBase64']];

function sameKeys(actual: readonly string[], expected: readonly string[]): boolean {
  if (actual.length !== expected.length) return false;
  for (let index = 0; index < expected.length; index++) if (actual[index] !== expected[index]) return false;
  return true;
}

/**
 * Only values `JSON.stringify` writes as `canonicalJson` does: strings, numbers, booleans, null,
 * undefined (left out by both) — and `allowed`, the one object of a record. Not an array, a
 * `toJSON`, a function or a symbol (which JSON.stringify would leave out and canonicalJson refuse).
 */
function primitives(values: object, allowed?: object): boolean {
  for (const value of Object.values(values)) {
    const type = typeof value;
    if (type === 'string' || type === 'number' || type === 'boolean' || value === null || value === undefined) continue;
    if (value !== allowed) return false;
  }
  return true;
}

/**
 * The canonical JSON of an entry (every field but `hash`, keys sorted by UTF-16 code units:
 * what `hashAuditEntry` hashes), for a record of the receiver's own shape: its keys in its
 * order, primitive values, and the three signature headers. Its fields are fixed, so rather
 * than sort them per entry, an object literal puts them in canonical order once and for all
 * and the engine's `JSON.stringify` writes it (its fast path for objects of one shape: about
 * a third of `canonicalJson`'s time, and half of writing each field by hand). `undefined` for a
 * record of any other shape: the caller then uses `canonicalJson`. Both give the same text for
 * the same entry, which a test holds them to.
 */
export function ownCanonicalJson(record: AuditRecord, seq: number, prevHash: string): string | undefined {
  const keys = Object.keys(record);
  if (!SHAPES.some((shape) => sameKeys(keys, shape))) return undefined;
  const headers = record.signatureHeaders;
  if (typeof headers !== 'object' || headers === null || !sameKeys(Object.keys(headers), HEADER_KEYS)) return undefined;
  if (!primitives(record, headers) || !primitives(headers)) return undefined;
  // Keys in canonical order; an absent body is undefined, which JSON.stringify leaves out as canonicalJson does.
  return JSON.stringify({
    authKeyIndex: record.authKeyIndex,
    authKeyLabel: record.authKeyLabel,
    body: record.body,
    bodyBase64: record.bodyBase64,
    bodyLength: record.bodyLength,
    bodySha256: record.bodySha256,
    code: record.code,
    durationMs: record.durationMs,
    eventTimestamp: record.eventTimestamp,
    handlerMs: record.handlerMs,
    httpStatus: record.httpStatus,
    idempotencyKey: record.idempotencyKey,
    kycStatus: record.kycStatus,
    outcome: record.outcome,
    prevHash,
    receivedAt: record.receivedAt,
    seq,
    sessionId: record.sessionId,
    signatureHeaders: {
      [HEADERS.webhookId]: headers[HEADERS.webhookId],
      [HEADERS.webhookSignature]: headers[HEADERS.webhookSignature],
      [HEADERS.webhookTimestamp]: headers[HEADERS.webhookTimestamp],
    },
    signatureVerified: record.signatureVerified,
    signingSecretIndex: record.signingSecretIndex,
    signingSecretLabel: record.signingSecretLabel,
    v: 1,
    webhookAttempt: record.webhookAttempt,
    webhookId: record.webhookId,
  });
}
