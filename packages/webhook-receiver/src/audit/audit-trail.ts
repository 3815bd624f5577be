import { WEBHOOK_RESPONSE_DEADLINE_MS } from '@kyc/contracts/webhook-reader';
import type { RequestFinishedListener } from '../receiver/request-finished.js';
import type { AuditTrail } from '../receiver/types.js';
import { WebhookError } from '../webhook-error.js';
import { auditListener, type ResolvedAudit } from './audit-listener.js';
import { redactionList } from './build-audit-record.js';
import { sha256Hex } from './hash-audit-entry.js';
import type { AuditOptions } from './types.js';

const DEFAULT_TIMEOUT_MS = 5_000;
// A label this long that sits inside a key is a piece of the key, whatever the caller meant.
const MIN_LEAKING_LENGTH = 8;

function invalid(message: string): never {
  throw new WebhookError('invalid_option', `auditTrail: ${message}`);
}

function labels(name: string, given: unknown, secrets: readonly string[]): readonly string[] | undefined {
  if (given === undefined) return undefined;
  if (!Array.isArray(given)) invalid(`${name} must be an array of strings.`);
  given.forEach((label: unknown, position) => {
    if (typeof label !== 'string' || label.length === 0 || label.length > 200)
      invalid(`${name}[${position}] must be a string of 1 to 200 characters.`);
    // Names the position only: the message must not repeat what may be a secret.
    const leaks = secrets.some(
      (secret) => label.includes(secret) || (label.length >= MIN_LEAKING_LENGTH && secret.includes(label)),
    );
    if (leaks)
      invalid(`${name}[${position}] contains a configured key or secret; a label names a key, never holds it.`);
  });
  return given as readonly string[];
}

/**
 * Turns on the audit trail: pass the result as `createWebhookReceiver({ audit })`. Every request
 * that reaches the receiver, whatever its outcome, becomes one hash-chained entry in `sink`
 * (see {@link AuditOptions} and docs/audit.md). A function rather than a plain option so that
 * receivers without an audit trail do not carry its code: on an edge bundle that is ~1.3 KB.
 *
 * @throws {@link index.WebhookError | WebhookError} `invalid_option` naming the option that is wrong; a label that
 * contains a configured key is refused when the receiver is created.
 * @example
 * const receiver = createWebhookReceiver({
 *   authKeys: [env.KYC_AUTH_KEY],
 *   onEvent,
 *   audit: auditTrail({ sink: jsonlAuditSink({ directory: '/var/lib/kyc/audit' }), authKeyLabels: ['2026-q4'] }),
 * });
 */
export function auditTrail(audit: AuditOptions): AuditTrail {
  if (typeof audit !== 'object' || audit === null) invalid('options must be an object: { sink, … }.');
  const sink: unknown = audit.sink;
  if (typeof sink !== 'object' || sink === null || typeof (sink as { append?: unknown }).append !== 'function')
    invalid('sink must have an append(record) method (jsonlAuditSink, postgresAuditSink or callbackAuditSink).');
  const onFailure = audit.onFailure ?? 'fail-closed';
  if (onFailure !== 'fail-closed' && onFailure !== 'fail-open')
    invalid('onFailure must be "fail-closed" or "fail-open".');
  const timeoutMs = audit.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // A write that outlasts the sender's deadline cannot change the answer the sender counts.
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0 || timeoutMs > WEBHOOK_RESPONSE_DEADLINE_MS)
    invalid(
      `timeoutMs must be a positive integer of at most ${WEBHOOK_RESPONSE_DEADLINE_MS} (the sender's response deadline).`,
    );
  return {
    attach({ logger, secrets }): RequestFinishedListener {
      const resolved: ResolvedAudit = {
        sink: audit.sink,
        failClosed: onFailure === 'fail-closed',
        timeoutMs,
        sha256: typeof audit.sink.sha256 === 'function' ? audit.sink.sha256.bind(audit.sink) : sha256Hex,
        includeBody: audit.includeBody === true,
        secrets: redactionList(secrets),
        authKeyLabels: labels('authKeyLabels', audit.authKeyLabels, secrets),
        signingSecretLabels: labels('signingSecretLabels', audit.signingSecretLabels, secrets),
      };
      return auditListener(resolved, logger);
    },
  };
}
