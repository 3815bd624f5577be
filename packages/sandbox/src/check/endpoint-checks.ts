import { randomBytes } from 'node:crypto';
import {
  AUTH_SCHEME,
  HEADERS,
  JSON_CONTENT_TYPE,
  SIGNATURE_TOLERANCE_MS,
  sampleCombinedWebhook,
  sampleStatusWebhook,
  sampleV1Webhook,
  sessionDetailsUrl,
  WEBHOOK_RESPONSE_DEADLINE_MS,
  WEBHOOK_SUCCESS_STATUS,
  WEBHOOK_USER_AGENT,
} from '@kyc/contracts';
import { standardWebhooksSignature } from '@kyc/delivery-engine';

/** Milliseconds in a minute, to say the tolerance in minutes. */
const MINUTE_MS = 60 * 1000;

/**
 * The id of one check `check-endpoint` runs. Spelled out rather than derived from `CHECKS` so the
 * public type reads as the list it is; `CHECKS` must name each exactly once.
 */
export type CheckId =
  | 'auth-key'
  | 'signing-secret'
  | 'https-url'
  | 'reachable'
  | 'tls-certificate'
  | 'rejects-missing-key'
  | 'rejects-wrong-key'
  | 'rejects-wrong-signature'
  | 'rejects-stale-signature'
  | 'accepts-v1'
  | 'accepts-status'
  | 'tolerates-unknown-fields'
  | 'acknowledges-duplicate';

/** Every check of `check-endpoint`, in the order they run, with the title the report prints. */
export const CHECKS: Readonly<Record<CheckId, string>> = Object.freeze({
  'auth-key': 'the Auth Key is one the service accepts',
  'signing-secret': 'the signing secret is a Standard Webhooks secret the service signs with',
  'https-url': 'the URL uses https and a public address',
  reachable: 'the endpoint answers connections',
  'tls-certificate': 'presents a valid TLS certificate',
  'rejects-missing-key': 'answers 401 without an Authorization header',
  'rejects-wrong-key': 'answers 401 to a wrong Auth Key',
  'rejects-wrong-signature': 'answers 401 to a webhook-signature made with another secret',
  'rejects-stale-signature': `answers 401 to a signed delivery whose webhook-timestamp is over ${SIGNATURE_TOLERANCE_MS / MINUTE_MS} min old`,
  'accepts-v1': `answers 200 within ${WEBHOOK_RESPONSE_DEADLINE_MS / 1000} s to a v1 body`,
  'accepts-status': `answers 200 within ${WEBHOOK_RESPONSE_DEADLINE_MS / 1000} s to a status body`,
  'tolerates-unknown-fields': 'answers 200 to a body with unknown fields',
  'acknowledges-duplicate': 'answers 200 to a repeated delivery (same Webhook-Id) without failing',
});

/** One finding of `check-endpoint`. */
export interface CheckResult {
  readonly id: CheckId;
  readonly title: string;
  /** `pass`, `fail`, or `skip` when an earlier failure made the check meaningless. */
  readonly verdict: 'pass' | 'fail' | 'skip';
  readonly detail: string;
  /** For a failed check: the cause and the fix in one sentence. */
  readonly fix?: string;
  /** For a failed check: the specification's matching troubleshooting hint (spec §7). */
  readonly hint?: string;
}

/** One request the checker sends. */
export interface ProbeRequest {
  readonly body: string;
  readonly eventId: string;
  /** `undefined` sends no Authorization header. */
  readonly authKey: string | undefined;
  /** Signs the probe as the service would (`webhook-signature`); `undefined` sends it unsigned. */
  readonly signingSecret?: string | undefined;
  /** The signed `webhook-timestamp` in Unix seconds; default now. */
  readonly timestampSeconds?: number;
}

const UNAUTHORIZED = 401;

/** Fresh sample bodies (unique session ids per run, so a receiver's dedupe never matches an old run). */
export function sampleBodies(sandboxUrl = 'https://sandbox.invalid') {
  const suffix = randomBytes(6).toString('hex');
  const v1Id = `sess_check_v1_${suffix}`;
  const statusId = `sess_check_status_${suffix}`;
  const extraId = `sess_check_extra_${suffix}`;
  return {
    v1Id,
    v1: JSON.stringify({
      ...structuredClone(sampleV1Webhook),
      id: v1Id,
      detailsURL: sessionDetailsUrl(sandboxUrl, v1Id),
    }),
    status: JSON.stringify({ ...structuredClone(sampleStatusWebhook), sessionId: statusId }),
    // Unknown properties at the top level and nested: receivers must keep working (forward compatibility).
    extra: JSON.stringify({
      ...structuredClone(sampleCombinedWebhook),
      id: extraId,
      sessionId: extraId,
      detailsURL: sessionDetailsUrl(sandboxUrl, extraId),
      riskSignals: { velocity: 'low', checkedBy: 'kyc-sandbox check-endpoint' },
      metadata: { ...structuredClone(sampleCombinedWebhook.metadata), networkType: 'wifi' },
    }),
  };
}

/** The protocol headers of one probe; the Auth Key only in `Authorization`. */
export function probeHeaders(probe: ProbeRequest, attempt = 1): Record<string, string> {
  const timestamp = probe.timestampSeconds ?? Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = {
    [HEADERS.contentType]: JSON_CONTENT_TYPE,
    [HEADERS.userAgent]: WEBHOOK_USER_AGENT,
    [HEADERS.webhookId]: probe.eventId,
    [HEADERS.webhookTimestamp]: String(timestamp),
    [HEADERS.webhookAttempt]: String(attempt),
  };
  if (probe.authKey !== undefined) headers[HEADERS.authorization] = `${AUTH_SCHEME} ${probe.authKey}`;
  if (probe.signingSecret !== undefined) {
    headers[HEADERS.webhookSignature] = standardWebhooksSignature(
      probe.signingSecret,
      probe.eventId,
      timestamp,
      probe.body,
    );
  }
  return headers;
}

/** What a probe's answer must be for each check. */
export const EXPECT = Object.freeze({
  ok: WEBHOOK_SUCCESS_STATUS,
  unauthorized: UNAUTHORIZED,
});

/**
 * Whether an answer says it was a duplicate (`@kyc/webhook-receiver` answers
 * `{"received": true, "duplicate": true}`). Other receivers may answer anything with their 200.
 */
export function saysDuplicate(snippet: string | undefined): boolean {
  try {
    const answer: unknown = JSON.parse(snippet ?? '');
    return typeof answer === 'object' && answer !== null && (answer as { duplicate?: unknown }).duplicate === true;
  } catch {
    return false;
  }
}
