import { HEADERS } from '@kyc/contracts/webhook-reader';
import type { RequestFinished } from '../receiver/request-finished.js';
import type { AuditRecord, Sha256 } from './types.js';

/** The audit options that shape a record. */
export interface RecordOptions {
  /** How bodies are hashed: the sink's SHA-256, else Web Crypto's. */
  readonly sha256: Sha256;
  readonly includeBody: boolean;
  /** Every configured Auth Key and signing secret, longest first (`redactionList`): redacted wherever a sender echoes one. */
  readonly secrets: readonly string[];
  readonly authKeyLabels: readonly string[] | undefined;
  readonly signingSecretLabels: readonly string[] | undefined;
}

const decoder = /* @__PURE__ */ new TextDecoder('utf-8', { fatal: true });

function base64(bytes: Uint8Array): string {
  let binary = '';
  // In slices: String.fromCharCode over a whole 1 MiB body would overflow the call stack.
  for (let start = 0; start < bytes.length; start += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  }
  return btoa(binary);
}

function bodyFields(body: Uint8Array): { body: string } | { bodyBase64: string } {
  try {
    const text = decoder.decode(body);
    // A NUL cannot sit in a Postgres text value; base64 keeps such a body storable everywhere.
    return text.includes('\u0000') ? { bodyBase64: base64(body) } : { body: text };
  } catch {
    return { bodyBase64: base64(body) };
  }
}

const REDACTED = '[redacted]';
// Shorter tokens cannot be keys (16 characters at least) and would blank out ordinary words.
const MIN_REDACTED_LENGTH = 8;

function redactText(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) if (result.includes(secret)) result = result.replaceAll(secret, REDACTED);
  return result;
}

/** The value with every secret replaced; the very same object when none occurs (the usual case). */
function redact<T>(value: T, secrets: readonly string[]): T {
  if (typeof value === 'string') return redactText(value, secrets) as T;
  if (typeof value !== 'object' || value === null) return value;
  let copy: Record<string, unknown> | undefined;
  for (const [name, item] of Object.entries(value)) {
    const clean = redact(item, secrets);
    if (clean === item) continue;
    copy ??= { ...(value as Record<string, unknown>) };
    copy[name] = clean;
  }
  return (copy ?? value) as T;
}

function holds(value: string | null | undefined, secrets: readonly string[]): boolean {
  if (value === null || value === undefined) return false;
  for (const secret of secrets) if (value.includes(secret)) return true;
  return false;
}

/**
 * Whether a field that carries what the sender sent (its headers, the event's fields, the body),
 * or a label, holds any of `secrets`. The others are the receiver's own words: times, codes,
 * numbers and hex digests.
 */
function exposes(record: AuditRecord, secrets: readonly string[]): boolean {
  const headers = record.signatureHeaders;
  return (
    holds(record.webhookId, secrets) ||
    holds(record.webhookAttempt, secrets) ||
    holds(record.idempotencyKey, secrets) ||
    holds(record.sessionId, secrets) ||
    holds(record.kycStatus, secrets) ||
    holds(record.eventTimestamp, secrets) ||
    holds(headers[HEADERS.webhookId], secrets) ||
    holds(headers[HEADERS.webhookTimestamp], secrets) ||
    holds(headers[HEADERS.webhookSignature], secrets) ||
    holds(record.body, secrets) ||
    holds(record.bodyBase64, secrets) ||
    holds(record.authKeyLabel, secrets) ||
    holds(record.signingSecretLabel, secrets)
  );
}

const NONE: readonly string[] = [];

/**
 * This request's `Authorization` value and its words, when they are not among the configured
 * secrets. For `Bearer <a configured key>` (nearly every request) there is nothing to add: any
 * text holding the value holds the key.
 */
function requestWords(finished: RequestFinished, configured: readonly string[]): readonly string[] {
  const authorization = finished.header(HEADERS.authorization)?.trim();
  if (authorization === undefined) return NONE;
  const blank = authorization.indexOf(' ');
  if (blank !== -1 && blank === authorization.lastIndexOf(' ') && configured.includes(authorization.slice(blank + 1)))
    return NONE;
  return [authorization, ...authorization.split(/[ \t]+/)].filter(
    (word) => word.length >= MIN_REDACTED_LENGTH && !configured.includes(word),
  );
}

/** The configured secrets an entry is cleaned of, longest first: made once per receiver. */
export function redactionList(secrets: readonly string[]): readonly string[] {
  return secrets.filter((secret) => secret.length >= MIN_REDACTED_LENGTH).sort((a, b) => b.length - a.length);
}

// Requests that arrive within the same millisecond share its ISO text.
let lastMs = Number.NaN;
let lastIso = '';
function isoTime(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}

function recordOf(finished: RequestFinished, options: RecordOptions, bodySha256: string | null): AuditRecord {
  const { answer, event, body, signature } = finished;
  const authKeyIndex = finished.authKeyIndex ?? null;
  const signingSecretIndex = signature?.secretIndex ?? null;
  const record: AuditRecord = {
    receivedAt: isoTime(finished.receivedAt),
    outcome: answer.outcome,
    code: answer.code ?? null,
    httpStatus: answer.status,
    webhookId: finished.webhookId ?? null,
    webhookAttempt: finished.header(HEADERS.webhookAttempt) ?? null,
    idempotencyKey: event?.idempotencyKey ?? null,
    sessionId: event?.sessionId ?? null,
    kycStatus: event?.status ?? null,
    eventTimestamp: event?.timestampIso ?? null,
    bodySha256,
    bodyLength: body === undefined ? null : body.length,
    signatureHeaders: {
      [HEADERS.webhookId]: finished.header(HEADERS.webhookId) ?? null,
      [HEADERS.webhookTimestamp]: finished.header(HEADERS.webhookTimestamp) ?? null,
      [HEADERS.webhookSignature]: finished.header(HEADERS.webhookSignature) ?? null,
    },
    signatureVerified: signature?.verified ?? null,
    signingSecretIndex,
    signingSecretLabel:
      signingSecretIndex === null ? null : (options.signingSecretLabels?.[signingSecretIndex] ?? null),
    authKeyIndex,
    authKeyLabel: authKeyIndex === null ? null : (options.authKeyLabels?.[authKeyIndex] ?? null),
    durationMs: Math.round(finished.durationMs),
    handlerMs: finished.handlerMs === undefined ? null : Math.round(finished.handlerMs),
  };
  // Inbox mode only, so entries of other receivers keep their shape (and their fast canonical JSON).
  if (finished.inbox !== undefined) Object.assign(record, { inbox: finished.inbox });
  const withBody = options.includeBody && body !== undefined ? Object.assign(record, bodyFields(body)) : record;
  // The body hash stays the hash of the bytes received; only what is shown in clear is redacted.
  const configured = options.secrets;
  const words = requestWords(finished, configured);
  if (!exposes(withBody, configured) && (words.length === 0 || !exposes(withBody, words))) return withBody;
  // Longest first, so a key is replaced whole before a part of it could be.
  return redact(
    withBody,
    [...configured, ...words].sort((a, b) => b.length - a.length),
  );
}

/**
 * The audit record of a finished request. Reads only what the receiver decided and the three
 * signature headers, never the `Authorization` header; and wherever a sender echoes a key, a
 * secret or its `Authorization` value (in a header, the session id, the body), it is replaced
 * by `[redacted]` (a label is the caller's name for a key, checked at configuration). At once
 * when the body's SHA-256 is (`nodeSha256`); a promise with Web Crypto's.
 */
export function buildAuditRecord(
  finished: RequestFinished,
  options: RecordOptions,
): AuditRecord | Promise<AuditRecord> {
  const { body } = finished;
  if (body === undefined) return recordOf(finished, options, null);
  const digest = options.sha256(body);
  return typeof digest === 'string'
    ? recordOf(finished, options, digest)
    : Promise.resolve(digest).then((hash) => recordOf(finished, options, hash));
}
