import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { SIGNING_SECRET_PREFIX as SECRET_PREFIX } from '@kyc/contracts';
import { DeliveryEngineError } from '../delivery-engine-error.js';

const MIN_SECRET_BYTES = 16;

/**
 * Checks a Standard Webhooks secret (`whsec_` + base64 of at least 16 random bytes) and returns
 * its key bytes. The message never repeats the secret.
 */
export function signingKey(secret: string, where: string): Buffer {
  if (typeof secret !== 'string' || !secret.startsWith(SECRET_PREFIX)) {
    throw new DeliveryEngineError('invalid_option', `${where}: a signing secret must start with "${SECRET_PREFIX}"`);
  }
  const encoded = secret.slice(SECRET_PREFIX.length);
  const key = Buffer.from(encoded, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || key.length < MIN_SECRET_BYTES) {
    throw new DeliveryEngineError(
      'invalid_option',
      `${where}: a signing secret must be "${SECRET_PREFIX}" followed by base64 of at least ${MIN_SECRET_BYTES} bytes`,
    );
  }
  return key;
}

/**
 * The Standard Webhooks signature header value: `v1,` + base64(HMAC-SHA256(key, `${id}.${ts}.${body}`)),
 * with `ts` in Unix seconds.
 *
 * @example
 * ```ts
 * standardWebhooksSignature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'evt_1', 1700000000, '{}');
 * ```
 */
export function standardWebhooksSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = signingKey(secret, 'standardWebhooksSignature');
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/**
 * The secrets of a stored `signingSecret`: one, or several separated by spaces (a rotation's
 * overlap, when every delivery carries one signature per secret). A secret never holds a space.
 */
export function signingSecretList(secrets: string): string[] {
  return secrets.split(' ').filter((secret) => secret !== '');
}

/** Parsed keys kept per stored `signingSecret` value; a company's secret is parsed once, not per attempt. */
const MAX_CACHED_SECRETS = 1024;
const keysBySecrets = new Map<string, readonly KeyObject[]>();

function keysOf(secrets: string): readonly KeyObject[] {
  let keys = keysBySecrets.get(secrets);
  if (keys === undefined) {
    keys = signingSecretList(secrets).map((secret) => createSecretKey(signingKey(secret, 'standardWebhooksSignature')));
    if (keysBySecrets.size >= MAX_CACHED_SECRETS) keysBySecrets.clear();
    keysBySecrets.set(secrets, keys);
  }
  return keys;
}

/**
 * The `webhook-signature` value for one or several secrets: one `v1,…` signature per secret,
 * space-separated, in the order given (Standard Webhooks lets a header carry several, and a
 * receiver accepts the delivery when any one verifies).
 */
export function signatureHeaderValue(
  secrets: string,
  id: string,
  timestampSeconds: number,
  body: string | Uint8Array,
): string {
  const keys = keysOf(secrets);
  // The body is hashed as it is (string or UTF-8 bytes, the same bytes on the wire) after the prefix.
  const prefix = `${id}.${timestampSeconds}.`;
  let value = '';
  for (const key of keys) {
    const mac = createHmac('sha256', key).update(prefix).update(body).digest('base64');
    value += `${value === '' ? '' : ' '}v1,${mac}`;
  }
  return value;
}
