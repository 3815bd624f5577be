import {
  AUTH_KEY_MIN_LENGTH,
  DEFAULT_HANDLER_TIMEOUT_MS,
  DEFAULT_IDEMPOTENCY_LEASE_MS,
  DEFAULT_IDEMPOTENCY_TTL_MS,
  DEFAULT_MAX_BODY_BYTES,
} from '@kyc/contracts/webhook-reader';
import { memoryIdempotencyStore } from '../idempotency/memory.js';
import type { ClaimOptions, CompleteOptions, IdempotencyStore } from '../idempotency/store.js';
import type { KycWebhookEvent } from '../parse-webhook.js';
import { createStandardWebhooksVerifier, type StandardWebhooksVerifier } from '../signatures/standard-webhooks.js';
import { telemetryListener } from '../telemetry/telemetry-listener.js';
import { WebhookError } from '../webhook-error.js';
import type { RequestFinishedListener, RequestTrace } from './request-finished.js';
import { safeLogger } from './safe-logger.js';
import type {
  AuditTrail,
  ReceiverAnswer,
  ReceiverInput,
  ReceiverLogger,
  WebhookHandler,
  WebhookReceiverOptions,
} from './types.js';

/** Inbox mode: runs one delivery. Carried by the inbox (`Inbox.run`, inbox/define-inbox.ts). */
export type InboxRunner = (
  options: ResolvedOptions,
  event: KycWebhookEvent,
  input: ReceiverInput,
  trace: RequestTrace,
) => Promise<ReceiverAnswer>;

/** Options after validation, with every default applied. */
export interface ResolvedOptions {
  readonly authKeys: readonly string[] | undefined;
  readonly onEvent: WebhookHandler<unknown>;
  readonly store: IdempotencyStore;
  /** Inbox mode: the customer's database holds the keys (the store is then unused). */
  readonly inbox: InboxRunner | undefined;
  readonly maxBodyBytes: number;
  readonly strict: boolean;
  readonly handlerTimeoutMs: number;
  readonly ttlMs: number;
  readonly leaseMs: number;
  /** `{ leaseMs }` and `{ ttlMs }`, built once rather than on every claim and completion. */
  readonly claimOptions: ClaimOptions;
  readonly completeOptions: CompleteOptions;
  readonly signatures: StandardWebhooksVerifier | undefined;
  readonly logger: ReceiverLogger;
  /** Milliseconds since the epoch: signature timestamps and `RequestFinished.receivedAt`. */
  readonly now: () => number;
  /** Per-request observers, in the order they run (see request-finished.ts). */
  readonly listeners: readonly RequestFinishedListener[];
}

/**
 * Without a logger, only errors are reported (a failed handler, a misconfigured framework, a
 * store failure), so a broken set-up is never silent. Fields never carry key material.
 */
const DEFAULT_LOGGER: ReceiverLogger = {
  error: (message, fields) => console.error(`[@kyc/webhook-receiver] ${message}`, fields ?? {}),
};

function invalid(message: string): never {
  throw new WebhookError('invalid_option', `createWebhookReceiver: ${message}`);
}

/** Longest delay a timer takes: past it `setTimeout` fires at once. */
const MAX_TIMER_MS = 2_147_483_647;

function positive(name: string, value: unknown, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0 || value > max)
    invalid(`${name} must be a positive integer${max === Number.MAX_SAFE_INTEGER ? '' : ` of at most ${max}`}.`);
  return value;
}

function storeOf(options: WebhookReceiverOptions<unknown>): IdempotencyStore {
  const store: unknown = options.idempotencyStore;
  if (store === undefined) return memoryIdempotencyStore();
  const methods = store as Partial<Record<keyof IdempotencyStore, unknown>>;
  const complete =
    typeof store === 'object' &&
    store !== null &&
    ['claim', 'complete', 'release'].every((name) => typeof methods[name as keyof IdempotencyStore] === 'function');
  if (!complete || (methods.extend !== undefined && typeof methods.extend !== 'function')) {
    invalid('idempotencyStore must implement IdempotencyStore (claim, complete, release, optionally extend).');
  }
  return store as IdempotencyStore;
}

function resolveKeys(options: WebhookReceiverOptions<unknown>): readonly string[] | undefined {
  const given: unknown = options.authKeys;
  if (given === undefined) {
    if (options.allowUnauthenticated === true) return undefined;
    invalid('authKeys is required (or pass allowUnauthenticated: true to accept v1 deliveries without a key).');
  }
  const keys: readonly unknown[] = Array.isArray(given) ? given : [given];
  if (keys.length === 0) invalid('authKeys must list at least one key.');
  keys.forEach((key, position) => {
    // Names the position only: an error message must never carry any part of a key.
    if (typeof key !== 'string') invalid(`authKeys[${position}] must be a string.`);
    if (key.length < AUTH_KEY_MIN_LENGTH) {
      invalid(`authKeys[${position}] is shorter than ${AUTH_KEY_MIN_LENGTH} characters.`);
    }
    if (key.trim() !== key || /\s/.test(key)) invalid(`authKeys[${position}] contains whitespace.`);
  });
  return keys as readonly string[];
}

/** Every configured key and secret, and a signing secret's base64 part on its own, for the logger to redact. */
function secretsOf(authKeys: readonly string[] | undefined, signingSecrets: unknown): string[] {
  const signing = (Array.isArray(signingSecrets) ? signingSecrets : [signingSecrets]).filter(
    (secret): secret is string => typeof secret === 'string' && secret.length > 0,
  );
  const parts = signing.map((secret) => secret.replace(/^whsec_/, '')).filter((part) => part.length >= 8);
  return [...(authKeys ?? []), ...signing, ...parts];
}

/** Validates options and applies defaults; throws `WebhookError('invalid_option')` naming the option. */
function inboxOf(options: WebhookReceiverOptions<unknown>): InboxRunner | undefined {
  const inbox: unknown = options.inbox;
  if (inbox === undefined) return undefined;
  // Two records of "processed" would disagree after a crash between them: one or the other.
  if (options.idempotencyStore !== undefined)
    invalid('inbox and idempotencyStore exclude each other: the inbox is the record of processed events.');
  // The runner comes with the inbox (inbox/define-inbox.ts), so the core does not carry it.
  const run = (inbox as { run?: unknown } | null)?.run;
  if (typeof run !== 'function') invalid('inbox must be made by an adapter (pgInbox …) or defineInbox.');
  return run as InboxRunner;
}

export function resolveOptions(options: WebhookReceiverOptions<unknown>): ResolvedOptions {
  if (typeof options !== 'object' || options === null) invalid('options must be an object.');
  if (typeof options.onEvent !== 'function') invalid('onEvent must be a function.');
  const secrets = options.signingSecrets;
  const now = options.now ?? Date.now;
  const signatureToleranceMs = positive('signatureToleranceMs', options.signatureToleranceMs, 1);
  const authKeys = resolveKeys(options);
  const allSecrets = secretsOf(authKeys, secrets);
  const logger = safeLogger(options.logger ?? DEFAULT_LOGGER, allSecrets);
  // Audit first (it may replace the answer), then observers that report the final answer.
  const listeners: RequestFinishedListener[] = [];
  const audit: unknown = options.audit;
  if (audit !== undefined) {
    if (typeof audit !== 'object' || audit === null || typeof (audit as AuditTrail).attach !== 'function')
      invalid('audit must be auditTrail({ sink, … }) from @kyc/webhook-receiver/audit.');
    listeners.push((audit as AuditTrail).attach({ logger, secrets: allSecrets }) as RequestFinishedListener);
  }
  if (options.telemetry !== undefined && options.telemetry !== false && typeof options.telemetry !== 'object') {
    invalid('telemetry must be false or an object such as { tracerProvider, meterProvider }.');
  }
  if (options.trustTraceContext !== undefined && typeof options.trustTraceContext !== 'boolean') {
    invalid('trustTraceContext must be a boolean.');
  }
  // Last: it reports the answer the sender really gets.
  telemetryListener(options.telemetry ?? undefined, options.trustTraceContext === true, listeners);
  const ttlMs = positive('idempotencyTtlMs', options.idempotencyTtlMs, DEFAULT_IDEMPOTENCY_TTL_MS);
  // The lease is renewed on a timer every third of it.
  const leaseMs = positive(
    'idempotencyLeaseMs',
    options.idempotencyLeaseMs,
    DEFAULT_IDEMPOTENCY_LEASE_MS,
    MAX_TIMER_MS,
  );
  return {
    authKeys,
    onEvent: options.onEvent,
    store: storeOf(options),
    inbox: inboxOf(options),
    maxBodyBytes: positive('maxBodyBytes', options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES),
    strict: options.strict === true,
    handlerTimeoutMs: positive('handlerTimeoutMs', options.handlerTimeoutMs, DEFAULT_HANDLER_TIMEOUT_MS, MAX_TIMER_MS),
    ttlMs,
    leaseMs,
    claimOptions: Object.freeze({ leaseMs }),
    completeOptions: Object.freeze({ ttlMs }),
    signatures:
      secrets === undefined
        ? undefined
        : createStandardWebhooksVerifier(
            secrets,
            options.signatureToleranceMs === undefined ? { now } : { now, toleranceMs: signatureToleranceMs },
          ),
    logger,
    now,
    listeners,
  };
}
