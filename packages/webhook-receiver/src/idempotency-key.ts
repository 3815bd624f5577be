import type { NormalizedWebhook } from '@kyc/contracts/webhook-reader';

/**
 * A 53-bit string hash (cyrb53), synchronous and dependency-free, used only when an event
 * carries no time of its own to tell two events of one session apart. Not a security measure.
 */
function hash53(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

function part(value: string | undefined): string {
  return value === undefined ? '' : encodeURIComponent(value);
}

/**
 * Longest key handed to a store. Session ids and times are bounded by the contract, but a
 * `Webhook-Id` header is not, and a Postgres btree index refuses keys past about 2.7 KB.
 */
export const MAX_KEY_LENGTH = 512;

function bounded(key: string): string {
  return key.length <= MAX_KEY_LENGTH ? key : `${key.slice(0, MAX_KEY_LENGTH - 32)}#${hash53(key)}`;
}

/**
 * The key that identifies one event, for deduplication. The `Webhook-Id` header when the
 * sender gives one (stable across the attempts of one event); otherwise derived from the
 * event itself — session id + status + event time (v1: session id + validation + end time) — never from
 * the session id alone, since a pending result followed later by a manual approval is two events.
 * A body that carries no time at all falls back to a hash of its text.
 *
 * @example
 * idempotencyKeyFor(webhook, request.headers.get(HEADERS.webhookId) ?? undefined, text);
 */
export function idempotencyKeyFor(webhook: NormalizedWebhook, webhookId: string | undefined, text: string): string {
  if (webhookId !== undefined && webhookId !== '') return bounded(`id:${part(webhookId)}`);
  const session = part(webhook.sessionId);
  if (webhook.shape === 'v1') {
    // v1 has no status: its validation method stands in for it (an AUTOMATIC result and a later MANUAL review are two events).
    const kind = `v1:${session}:${part(webhook.validation)}`;
    if (webhook.endedAtIso !== undefined) return bounded(`${kind}:${part(webhook.endedAtIso)}`);
    return bounded(`${kind}:#${hash53(text)}`);
  }
  const time = webhook.timestampIso ?? webhook.endedAtIso;
  if (time !== undefined) return bounded(`ev:${session}:${part(webhook.status)}:${part(time)}`);
  return bounded(`ev:${session}:${part(webhook.status)}:#${hash53(text)}`);
}
