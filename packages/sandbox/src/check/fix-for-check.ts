import { AUTH_SCHEME, SIGNATURE_TOLERANCE_MS, WEBHOOK_SUCCESS_STATUS } from '@kyc/contracts';
import type { AttemptResult } from '@kyc/delivery-engine';
import { type Diagnosis, diagnoseAttempt } from './diagnose-attempt.js';
import type { CheckId } from './endpoint-checks.js';

/** Milliseconds in a minute, to say the tolerance in minutes. */
const MINUTE_MS = 60 * 1000;

/** Answers whose cause is not the repeat, even after an accepted first delivery: credentials, path, size. */
const EXPLAINED_ALONE = new Set([401, 403, 404, 405, 413]);

const isSuccessClass = (status: number | undefined) => status !== undefined && status >= 200 && status < 300;

/**
 * What to change when a `check-endpoint` check fails: the cause and the fix in one sentence,
 * and the specification's matching troubleshooting hint. The authentication checks expect a
 * 401, so their fix speaks of the key; the others reuse {@link diagnoseAttempt}. A check that
 * tests one property (unknown fields, a repeat) blames it only when `baseline`, the same request
 * without that property, was accepted: otherwise the cause is what failed the baseline too (a
 * refused key is about the Authorization header, not about duplicates).
 */
export function fixForCheck(
  id: CheckId,
  answer: AttemptResult,
  baseline?: AttemptResult,
  signed = false,
): Diagnosis | undefined {
  // Whether the probe was signed tells a refused signature's likely cause (an old secret on the endpoint).
  const result = { ...answer, signed };
  const baselineAccepted = baseline === undefined || baseline.status === WEBHOOK_SUCCESS_STATUS;
  if (id === 'rejects-missing-key' || id === 'rejects-wrong-key') {
    const what = id === 'rejects-missing-key' ? 'without an Authorization header' : 'with a wrong Auth Key';
    if (isSuccessClass(result.status)) {
      return {
        message: `Your endpoint accepted a request ${what} (HTTP ${result.status}): compare the Authorization header with "${AUTH_SCHEME} <Auth Key>" before anything else and answer 401 when it is missing or differs.`,
        hint: 'authentication',
      };
    }
    return {
      message: `Answer 401 (not ${result.status ?? result.outcome}) to a request ${what}, so an authentication failure is told apart from a broken handler.`,
      hint: 'authentication',
    };
  }
  if (id === 'rejects-wrong-signature' || id === 'rejects-stale-signature') return signatureFix(id, result);
  if (id === 'tolerates-unknown-fields' && baselineAccepted && (result.status === 400 || result.status === 422)) {
    return {
      message: `Your endpoint rejected a body with unknown fields (${result.status}): ignore fields you do not know, the service may add some without a new version.`,
      hint: 'json',
    };
  }
  if (
    id === 'acknowledges-duplicate' &&
    baselineAccepted &&
    result.status !== WEBHOOK_SUCCESS_STATUS &&
    result.status !== undefined &&
    !EXPLAINED_ALONE.has(result.status)
  ) {
    const cause = diagnoseAttempt(result);
    return {
      message: `Your endpoint failed a repeated delivery (${result.status}): when a Webhook-Id was already processed, answer ${WEBHOOK_SUCCESS_STATUS} without running the handler again.${
        cause && result.status >= 200 && result.status < 300 ? ` ${cause.message}` : ''
      }`,
      hint: undefined,
    };
  }
  return diagnoseAttempt(result);
}

/** The fix for an endpoint that did not refuse a bad signature with 401. */
function signatureFix(id: 'rejects-wrong-signature' | 'rejects-stale-signature', result: AttemptResult): Diagnosis {
  const what =
    id === 'rejects-wrong-signature'
      ? 'whose webhook-signature was made with another secret'
      : `signed correctly but with a webhook-timestamp ${STALE_PROBE_MINUTES} minutes old`;
  if (isSuccessClass(result.status)) {
    const how =
      id === 'rejects-wrong-signature'
        ? `verify webhook-signature over the raw body with your signing secrets (createWebhookReceiver({ signingSecrets }), both secrets during a rotation) and answer 401 when no signature matches`
        : `refuse a webhook-timestamp more than ${SIGNATURE_TOLERANCE_MS / MINUTE_MS} minutes from now (signingSecrets does), or anyone who once saw a delivery can replay it`;
    return {
      message: `Your endpoint accepted a delivery ${what} (HTTP ${result.status}): ${how}.`,
      hint: 'authentication',
    };
  }
  return {
    message: `Answer 401 (not ${result.status ?? result.outcome}) to a delivery ${what}, so a forged or replayed delivery is told apart from a broken handler.`,
    hint: 'authentication',
  };
}

/** How old the stale probe's timestamp is: well past the 5-minute tolerance. */
export const STALE_PROBE_MINUTES = 10;

/** Host names and literals of this machine, where a developer's local receiver runs. */
const THIS_MACHINE = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/**
 * What to change when the URL itself is refused: a receiver on the developer's own machine is
 * the common case, and each way to check or reach it needs a different step.
 */
export function fixForUrl(code: string, url: string, loopbackAllowed: boolean): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return undefined;
  }
  if (!THIS_MACHINE.test(host)) return undefined;
  if (code === 'not_https') {
    return 'The service delivers only over https. Serve your receiver over HTTPS (a development certificate works with --ca <its file>), or receive real deliveries on this plain-HTTP server with kyc-sandbox listen --forward-to <this URL>.';
  }
  if (code === 'blocked_address' && !loopbackAllowed) {
    return 'The service delivers only to public addresses. To check a receiver on this machine, run the check again with --allow-loopback (allowLoopback: true in code).';
  }
  return undefined;
}
