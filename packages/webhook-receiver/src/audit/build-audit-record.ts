import { HEADERS } from '@kyc/contracts/webhook-reader';
import type { RequestFinished } from '../receiver/request-finished.js';
import type { AuditRecord, Sha256 } from './types.js';

/** The audit options that shape a record. */
export interface RecordOptions {
  /** How bodies are hashed: the sink's SHA-256, else Web Crypto's. */
  readonly sha256: Sha256;
  readonly includeBody: boolean;
  /** Every configured Auth Key and signing secret: redacted wherever a sender echoes one. */
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

/** What must never reach an entry: the keys, the secrets, and this request's `Authorization` value and token. */
function secretsOf(finished: RequestFinished, configured: readonly string[]): string[] {
  const authorization = finished.header(HEADERS.authorization)?.trim();
  const words = authorization === undefined ? [] : [authorization, ...authorization.split(/[ \t]+/)];
  // Longest first, so a key is replaced whole before a part of it could be.
  return [...configured, ...words]
    .filter((word) => word.length >= MIN_REDACTED_LENGTH)
    .sort((a, b) => b.length - a.length);
}

/**
 * The audit record of a finished request. Reads only what the receiver decided and the three
 * signature headers, never the `Authorization` header; and wherever a sender echoes a key, a
 * secret or its `Authorization` value (in a header, the session id, the body), it is replaced
 * by `[redacted]` (a label is the caller's name for a key, checked at configuration).
 */
export async function buildAuditRecord(finished: RequestFinished, options: RecordOptions): Promise<AuditRecord> {
  const { answer, event, body, signature } = finished;
  const header = (name: string) => finished.header(name) ?? null;
  const authKeyIndex = finished.authKeyIndex ?? null;
  const signingSecretIndex = signature?.secretIndex ?? null;
  const record: AuditRecord = {
    receivedAt: new Date(finished.receivedAt).toISOString(),
    outcome: answer.outcome,
    code: answer.code ?? null,
    httpStatus: answer.status,
    webhookId: finished.webhookId ?? null,
    webhookAttempt: header(HEADERS.webhookAttempt),
    idempotencyKey: event?.idempotencyKey ?? null,
    sessionId: event?.sessionId ?? null,
    kycStatus: event?.status ?? null,
    eventTimestamp: event?.timestampIso ?? null,
    bodySha256: body === undefined ? null : await options.sha256(body),
    bodyLength: body === undefined ? null : body.length,
    signatureHeaders: {
      [HEADERS.webhookId]: header(HEADERS.webhookId),
      [HEADERS.webhookTimestamp]: header(HEADERS.webhookTimestamp),
      [HEADERS.webhookSignature]: header(HEADERS.webhookSignature),
    },
    signatureVerified: signature?.verified ?? null,
    signingSecretIndex,
    signingSecretLabel:
      signingSecretIndex === null ? null : (options.signingSecretLabels?.[signingSecretIndex] ?? null),
    authKeyIndex,
    authKeyLabel: authKeyIndex === null ? null : (options.authKeyLabels?.[authKeyIndex] ?? null),
    durationMs: Math.round(finished.durationMs),
    handlerMs: finished.handlerMs === undefined ? null : Math.round(finished.handlerMs),
    ...(options.includeBody && body !== undefined ? bodyFields(body) : {}),
  };
  // The body hash stays the hash of the bytes received; only what is shown in clear is redacted.
  return redact(record, secretsOf(finished, options.secrets));
}
