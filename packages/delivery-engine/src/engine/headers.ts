import { AUTH_SCHEME, HEADERS, JSON_CONTENT_TYPE, WEBHOOK_USER_AGENT } from '@kyc/contracts';
import { signatureHeaderValue } from './signing.js';

/** What the attempt log stores in place of the Auth Key. */
export const REDACTED = '[redacted]';

/** The headers of one attempt (protocol headers only; names from `@kyc/contracts`). */
export function attemptHeaders(input: {
  readonly id: string;
  readonly attempt: number;
  readonly timestampMs: number;
  /** As stored: a string, or its UTF-8 bytes (signed as they are). */
  readonly body: string | Uint8Array;
  readonly authKey: string | undefined;
  /** One secret, or several separated by spaces (one signature each, during a rotation). */
  readonly signingSecret: string | undefined;
}): Record<string, string> {
  const timestamp = Math.floor(input.timestampMs / 1000);
  // Assigned one by one: a literal with computed keys (`{ [HEADERS.webhookId]: … }`) takes V8's
  // slow runtime path for every property (~7k instructions per attempt, by callgrind).
  const headers: Record<string, string> = {};
  headers[HEADERS.contentType] = JSON_CONTENT_TYPE;
  headers[HEADERS.userAgent] = WEBHOOK_USER_AGENT;
  headers[HEADERS.webhookId] = input.id;
  headers[HEADERS.webhookTimestamp] = String(timestamp);
  headers[HEADERS.webhookAttempt] = String(input.attempt);
  if (input.authKey !== undefined) headers[HEADERS.authorization] = `${AUTH_SCHEME} ${input.authKey}`;
  if (input.signingSecret !== undefined) {
    headers[HEADERS.webhookSignature] = signatureHeaderValue(input.signingSecret, input.id, timestamp, input.body);
  }
  return headers;
}

/**
 * The headers as the attempt log stores them: the Auth Key is replaced before the row is
 * written, so no store, backup or dashboard ever holds it. The signature is kept: it reveals
 * nothing about the secret and lets support compare it with what the receiver computed.
 */
export function redactHeaders(headers: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  // The engine writes protocol header names in lower case (HEADERS): one look-up in the usual case.
  if (headers[HEADERS.authorization] !== undefined) {
    const copy = { ...headers };
    copy[HEADERS.authorization] = `${AUTH_SCHEME} ${REDACTED}`;
    return copy;
  }
  let copy: Record<string, string> | undefined;
  for (const name in headers) {
    // The length first: no other header the engine sends has as many characters.
    if (name.length === HEADERS.authorization.length && name.toLowerCase() === HEADERS.authorization) {
      copy ??= { ...headers };
      copy[name] = `${AUTH_SCHEME} ${REDACTED}`;
    }
  }
  // Nothing to hide (no Auth Key on this delivery): the headers as they are, without a copy.
  return copy ?? headers;
}
