/**
 * Protocol constants of the KYC completion webhook. Every other package imports these:
 * no limit, header name or path is written anywhere else.
 *
 * @packageDocumentation
 */

/** The receiver must answer within this many milliseconds, for the whole response (spec §8). */
export const WEBHOOK_RESPONSE_DEADLINE_MS = 30_000;

/** One initial attempt plus at most three retries (spec §8). */
export const WEBHOOK_MAX_ATTEMPTS = 4;

/**
 * Delay before each retry, measured from the failed attempt that precedes it (spec §8):
 * 1 minute, 5 minutes, 15 minutes.
 */
export const WEBHOOK_RETRY_DELAYS_MS: readonly [number, number, number] = /* @__PURE__ */ Object.freeze([
  60_000, 300_000, 900_000,
]) as readonly [number, number, number];

/** The only status that counts as a delivered webhook (spec §7). 201, 202, 204 and 3xx are failures. */
export const WEBHOOK_SUCCESS_STATUS = 200;

/** Minimum length of a company's Auth Key (spec §2.3, §5). */
export const AUTH_KEY_MIN_LENGTH = 16;

/** The `User-Agent` the service sends on every delivery (spec §9). */
export const WEBHOOK_USER_AGENT = 'Service-Webhook/1.0';

/** The scheme of the `Authorization` header on deliveries (spec §5). */
export const AUTH_SCHEME = 'Bearer';

/** The path of the service API below the service's base URL. */
export const API_BASE_PATH = '/api/v1/kyc';

/** `POST {baseUrl}{API_BASE_PATH}{SESSION_FINISH_PATH}` ends a flow (spec §4.2). */
export const SESSION_FINISH_PATH = '/session/finish';

/** `GET {baseUrl}{API_BASE_PATH}{SESSION_PATH}/<id>` reads a flow (spec §4.3). */
export const SESSION_PATH = '/session';

/** The event name of the status-shaped body; the only event the service emits (spec §6). */
export const SESSION_COMPLETED_EVENT = 'session.completed';

/**
 * How long a receiver remembers a processed event by default: 7 days, because a manual
 * redelivery can come long after the 21-minute automatic retry window.
 */
export const DEFAULT_IDEMPOTENCY_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** Default cap on a webhook body a receiver accepts (1 MiB). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * How long a receiver lets the customer's handler run before answering 503: below the
 * 30 s deadline so the answer reaches the sender in time.
 */
export const DEFAULT_HANDLER_TIMEOUT_MS = 25_000;

/** How much of a receiver's response body the sender keeps in its attempt log (64 KiB). */
export const RESPONSE_SNIPPET_MAX_BYTES = 64 * 1024;

/** Default tolerance for Standard Webhooks timestamps (5 minutes, as in the Standard Webhooks spec). */
export const SIGNATURE_TOLERANCE_MS = 5 * 60 * 1000;

/**
 * How a Standard Webhooks signing secret begins: `whsec_` followed by the base64 of its key
 * bytes. The sender and every receiver read a secret by this prefix.
 */
export const SIGNING_SECRET_PREFIX = 'whsec_';

/** Content type of every webhook and API body. */
export const JSON_CONTENT_TYPE = 'application/json';

/**
 * Header names, lower-cased as the Fetch `Headers` object and Node expose them.
 * `Webhook-*` follow the Standard Webhooks names so signing is a drop-in.
 */
export const HEADERS = /* @__PURE__ */ Object.freeze({
  authorization: 'authorization',
  contentType: 'content-type',
  userAgent: 'user-agent',
  webhookId: 'webhook-id',
  webhookTimestamp: 'webhook-timestamp',
  webhookSignature: 'webhook-signature',
  webhookAttempt: 'webhook-attempt',
  retryAfter: 'retry-after',
  requestId: 'x-request-id',
  wwwAuthenticate: 'www-authenticate',
} as const);

/** Verification outcomes of the status-shaped body (spec §3). */
export const VERIFICATION_STATUSES = ['APPROVED', 'REJECTED', 'PENDING', 'ERROR'] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

/** What the specification suggests a customer does for each status (spec §3). */
export const SUGGESTED_ACTIONS: Readonly<Record<VerificationStatus, string>> = /* @__PURE__ */ Object.freeze({
  APPROVED: 'Activate the account',
  REJECTED: 'Ask for a retry or more documents',
  PENDING: 'Notify the compliance team',
  ERROR: 'Allow the user to retry',
});

/** Validation methods of the v1 body (spec §2.1). */
export const VALIDATION_METHODS = ['AUTOMATIC', 'MANUAL'] as const;
export type ValidationMethod = (typeof VALIDATION_METHODS)[number];

/** Life-cycle states of a session as the service API reports them. */
export const SESSION_STATES = ['IN_PROGRESS', 'FINISHED'] as const;
export type SessionState = (typeof SESSION_STATES)[number];

/** Error codes the service API uses in `{"error": {"code"}}`. Unknown codes may appear. */
export const API_ERROR_CODES = [
  'INVALID_REQUEST',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'SESSION_NOT_FOUND',
  'NOT_FOUND',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'UNPROCESSABLE',
  'RATE_LIMITED',
  'INTERNAL',
  'UNAVAILABLE',
] as const;
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/**
 * The HTTP status of each error code, as the service API answers it. `SESSION_NOT_FOUND` is
 * the 404 of a session operation, `NOT_FOUND` the 404 of a path the API does not have.
 */
export const API_ERROR_STATUS: Readonly<Record<ApiErrorCode, number>> = /* @__PURE__ */ Object.freeze({
  INVALID_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  SESSION_NOT_FOUND: 404,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNPROCESSABLE: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
});

/** Largest request body the service API reads (256 KiB); a larger one is answered 413 `PAYLOAD_TOO_LARGE`. */
export const API_MAX_BODY_BYTES = 256 * 1024;

/** Lowest and highest score of every score field (spec §2.1, §2.2). */
export const SCORE_MIN = 0;
export const SCORE_MAX = 100;

/** Longest session id any package accepts; longer ids are treated as malformed input. */
export const SESSION_ID_MAX_LENGTH = 256;

/**
 * How long a receiver's idempotency claim on an event in progress lasts (5 minutes) before
 * another delivery may take it over: long enough for a handler that outlives the 503 answer,
 * short enough that after a crash the second or third retry (1 + 5 min later) runs the event.
 */
export const DEFAULT_IDEMPOTENCY_LEASE_MS = 5 * 60 * 1000;

/**
 * How long a receiver's transactional inbox keeps an event's key before `pruneInbox` may delete
 * it: 30 days, longer than the 7 days a processed event is remembered for manual redelivery
 * ({@link DEFAULT_IDEMPOTENCY_TTL_MS}), so a redelivery inside that horizon always finds its key.
 */
export const DEFAULT_INBOX_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * How long a delivery waits for the same event's key (or its session) held by another delivery's
 * open transaction before the receiver answers 409: 5 seconds, well inside the 25 s handler
 * timeout, so the waiting delivery still answers before the sender's 30 s deadline.
 */
export const DEFAULT_INBOX_LOCK_TIMEOUT_MS = 5_000;

/**
 * The longest lock timeout an inbox accepts: a minute. A delivery that waited longer could not
 * answer within the sender's 30 s deadline anyway, and the limit keeps a typo from holding
 * connections for hours.
 */
export const MAX_INBOX_LOCK_TIMEOUT_MS = 60 * 1000;

/** The `Allow` header a receiver sends with a 405 answer (RFC 9110 §15.5.6). */
export const ALLOW_HEADER = 'allow';

/** The only method a webhook delivery uses (spec §4.1). */
export const WEBHOOK_METHOD = 'POST';

/** The `Content-Length` header, read by a receiver to refuse an oversized body before reading it. */
export const CONTENT_LENGTH_HEADER = 'content-length';
