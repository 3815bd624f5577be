import { SIGNATURE_TOLERANCE_MS } from '@kyc/contracts/webhook-reader';
import { WebhookError } from '../webhook-error.js';

/** Why a Standard Webhooks signature was refused. */
export type SignatureFailureCode = 'missing_signature' | 'stale_signature' | 'invalid_signature';

/** The outcome of {@link StandardWebhooksVerifier.verify}. */
export type SignatureResult =
  /** `secretIndex`: the position of the secret that verified, for the audit trail (never the secret). */
  { readonly ok: true; readonly secretIndex: number } | { readonly ok: false; readonly code: SignatureFailureCode };

/** The three Standard Webhooks headers of one delivery. */
export interface SignatureHeaders {
  readonly id: string | null | undefined;
  readonly timestamp: string | null | undefined;
  readonly signature: string | null | undefined;
}

/** Options of {@link createStandardWebhooksVerifier}. */
export interface StandardWebhooksOptions {
  /** How far the signed timestamp may be from now, either way. Default 5 minutes. */
  readonly toleranceMs?: number;
  /** Milliseconds since the epoch; default `Date.now`. */
  readonly now?: () => number;
}

/** Verifies Standard Webhooks signatures against one or more secrets. */
export interface StandardWebhooksVerifier {
  verify(headers: SignatureHeaders, body: Uint8Array): Promise<SignatureResult>;
}

const SECRET_PREFIX = 'whsec_';
const SIGNATURE_VERSION = 'v1';
const encoder = /* @__PURE__ */ new TextEncoder();
// A sender lists one signature per active secret; more than this is an attempt to make us hash a lot.
const MAX_SIGNATURES = 8;

function decodeBase64(text: string): Uint8Array | undefined {
  try {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
    return bytes;
  } catch {
    return undefined;
  }
}

function importSecret(secret: string, position: number): Promise<CryptoKey> {
  const raw = decodeBase64(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
  if (raw === undefined || raw.length === 0) {
    // Says which secret, never any part of it.
    throw new WebhookError('invalid_option', `signingSecrets[${position}] is not base64 (the "whsec_…" form).`);
  }
  return crypto.subtle.importKey('raw', raw as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'verify',
  ]);
}

/**
 * Verifies the opt-in signatures of the Standard Webhooks scheme (id, timestamp and
 * signature headers; signatures as `v1,<base64>`, space-separated) with Web Crypto, so it runs on
 * every runtime. Several secrets may be active at once (rotation); every listed signature is
 * tried against every secret, and the timestamp must be within the tolerance.
 *
 * @throws {@link WebhookError} `invalid_option` when a secret is not base64.
 * @example
 * const verifier = createStandardWebhooksVerifier(['whsec_…']);
 * const result = await verifier.verify({ id, timestamp, signature }, bodyBytes);
 */
export function createStandardWebhooksVerifier(
  secrets: string | readonly string[],
  options: StandardWebhooksOptions = {},
): StandardWebhooksVerifier {
  const list: readonly unknown[] = Array.isArray(secrets) ? secrets : [secrets];
  if (list.length === 0) throw new WebhookError('invalid_option', 'signingSecrets must list at least one secret.');
  const keys = list.map((secret, position) => {
    if (typeof secret !== 'string')
      throw new WebhookError('invalid_option', `signingSecrets[${position}] must be a string.`);
    return importSecret(secret, position);
  });
  // Surface an import failure at first use, not as an unhandled rejection now.
  for (const key of keys) key.catch(() => undefined);
  const toleranceMs = options.toleranceMs ?? SIGNATURE_TOLERANCE_MS;
  const now = options.now ?? Date.now;

  return {
    async verify(headers, body) {
      const { id, timestamp, signature } = headers;
      if (!id || !timestamp || !signature) return { ok: false, code: 'missing_signature' };
      if (!/^\d{1,15}$/.test(timestamp)) return { ok: false, code: 'invalid_signature' };
      if (Math.abs(now() - Number(timestamp) * 1000) > toleranceMs) return { ok: false, code: 'stale_signature' };

      const prefix = encoder.encode(`${id}.${timestamp}.`);
      const signed = new Uint8Array(prefix.length + body.length);
      signed.set(prefix);
      signed.set(body, prefix.length);
      const candidates: Uint8Array[] = [];
      for (const entry of signature.split(' ', MAX_SIGNATURES)) {
        const comma = entry.indexOf(',');
        if (comma === -1 || entry.slice(0, comma) !== SIGNATURE_VERSION) continue;
        const bytes = decodeBase64(entry.slice(comma + 1));
        if (bytes !== undefined) candidates.push(bytes);
      }
      const resolved = await Promise.all(keys);
      let matched = -1;
      for (let index = 0; index < resolved.length; index++) {
        const key = resolved[index] as CryptoKey;
        for (const candidate of candidates) {
          // subtle.verify compares in constant time.
          const ok = await crypto.subtle.verify(
            'HMAC',
            key,
            candidate as Uint8Array<ArrayBuffer>,
            signed as Uint8Array<ArrayBuffer>,
          );
          if (ok && matched === -1) matched = index;
        }
      }
      return matched >= 0 ? { ok: true, secretIndex: matched } : { ok: false, code: 'invalid_signature' };
    },
  };
}
