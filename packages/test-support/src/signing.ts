import { HEADERS, SIGNING_SECRET_PREFIX } from '@kyc/contracts';

/**
 * Test secrets (`whsec_` + base64 of 32 bytes): the new and the old one of a rotation, as
 * KYC_SIGNING_SECRETS lists them, and one nobody configured. Shared by every example's tests so
 * a suite and a hand-written test sign the same way.
 */
export const EXAMPLE_SIGNING_SECRETS: Readonly<Record<'new' | 'old' | 'forged', string>> = {
  new: `${SIGNING_SECRET_PREFIX}bmV3LXNpZ25pbmctc2VjcmV0LWZvci1leGFtcGxlcyE=`,
  old: `${SIGNING_SECRET_PREFIX}b2xkLXNpZ25pbmctc2VjcmV0LWZvci1leGFtcGxlcyE=`,
  forged: `${SIGNING_SECRET_PREFIX}Zm9yZ2VkLXNpZ25pbmctc2VjcmV0LW5vYm9keS1oYXM=`,
};

/** A Standard Webhooks signature (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body`), with Web Crypto. */
export async function signWebhook(secret: string, id: string, timestamp: number, body: string): Promise<string> {
  const raw = Uint8Array.from(atob(secret.slice(SIGNING_SECRET_PREFIX.length)), (c) => c.charCodeAt(0));
  const key = await crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${timestamp}.${body}`));
  return `v1,${btoa(String.fromCharCode(...new Uint8Array(mac)))}`;
}

/**
 * The headers the service adds to a signed delivery: its id, the time (`ageSeconds` in the past,
 * to make a stale one) and one signature per secret, space-separated as during an overlap.
 */
export async function signatureHeaders(
  body: string,
  { id, secrets, ageSeconds = 0 }: { id: string; secrets: readonly string[]; ageSeconds?: number },
): Promise<Record<string, string>> {
  const timestamp = Math.floor(Date.now() / 1000) - ageSeconds;
  const signatures = await Promise.all(secrets.map((secret) => signWebhook(secret, id, timestamp, body)));
  return {
    [HEADERS.webhookId]: id,
    [HEADERS.webhookTimestamp]: String(timestamp),
    [HEADERS.webhookSignature]: signatures.join(' '),
  };
}
