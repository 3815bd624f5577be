import { AUTH_SCHEME, HEADERS, JSON_CONTENT_TYPE, WEBHOOK_USER_AGENT } from '@kyc/contracts';
import type { AttemptRecord, DeliveryRecord, ScaledClock } from '@kyc/delivery-engine';
import { diagnoseAttempt } from '../check/diagnose-attempt.js';
import { maskedAuthKey } from '../domain/masked-auth-key.js';
import type { ForwardMark } from '../listen/forward-log.js';
import type { SigningSecretUse } from '../store/signing-secrets.js';
import type { PortalDeliveryRow } from './portal-store.js';
import type { AttemptDetail } from './portal-views.js';

/**
 * The headers of a delivery as the inspector shows them: those of its latest attempt, or those
 * it will carry. The engine stores the Authorization header already redacted; the portal shows
 * `Bearer ••••` and the key's last four characters.
 */
export function requestHeaders(
  row: PortalDeliveryRow,
  latest: AttemptRecord | undefined,
): { name: string; value: string }[] {
  const sent = latest?.requestHeaders ?? {
    [HEADERS.contentType]: JSON_CONTENT_TYPE,
    [HEADERS.userAgent]: WEBHOOK_USER_AGENT,
    [HEADERS.webhookId]: row.eventId,
    ...(row.authKeyHint === undefined ? {} : { [HEADERS.authorization]: '' }),
  };
  return Object.entries(sent).map(([name, value]) =>
    name.toLowerCase() === HEADERS.authorization
      ? { name, value: `${AUTH_SCHEME} ${maskedAuthKey(row.authKeyHint ?? '')}` }
      : { name, value },
  );
}

/** Every attempt of a delivery with its diagnosis and, when it went through `kyc-sandbox listen`, where to. */
export function attemptDetails(
  record: DeliveryRecord | undefined,
  clock: ScaledClock,
  forwards: ReadonlyMap<number, ForwardMark>,
  signedWith: ReadonlyMap<number, readonly SigningSecretUse[]>,
): AttemptDetail[] {
  return (record?.attemptLog ?? []).map((a) => ({
    attempt: a.attempt,
    round: a.round,
    at: new Date(clock.toWall(a.startedAt)).toISOString(),
    outcome: a.outcome,
    status: a.status ?? null,
    latencyMs: Math.round(a.latencyMs),
    dialedAddress: a.dialedAddress ?? null,
    responseSnippet: a.responseSnippet ?? null,
    error: a.errorMessage ?? null,
    diagnosis:
      diagnoseAttempt({
        outcome: a.outcome,
        status: a.status,
        responseSnippet: a.responseSnippet,
        signed: a.requestHeaders[HEADERS.webhookSignature] !== undefined,
      }) ?? null,
    forwardedTo: forwards.get(a.attempt) ?? null,
    unrecordedSends: a.unrecordedSends,
    // Only an attempt that carried a signature was signed (one lost to a crashed worker was not sent).
    signedWith:
      a.requestHeaders[HEADERS.webhookSignature] === undefined
        ? null
        : (signedWith.get(a.attempt) ?? []).map((s) => ({
            label: s.label,
            createdAt: new Date(s.createdAt).toISOString(),
          })),
  }));
}
