import {
  ALLOW_HEADER,
  AUTH_SCHEME,
  HEADERS,
  JSON_CONTENT_TYPE,
  WEBHOOK_METHOD,
  WEBHOOK_RETRY_DELAYS_MS,
  WEBHOOK_SUCCESS_STATUS,
} from '@kyc/contracts/webhook-reader';
import type { AnswerCode, ReceiveOutcome } from './outcome.js';
import type { ReceiverAnswer } from './types.js';

// Generic on purpose: the sender logs response bodies, and details belong in the receiver's own logs.
const MESSAGES: Readonly<Record<AnswerCode, string>> = {
  method_not_allowed: 'Webhooks are delivered with POST.',
  missing_auth: 'Authorization is required.',
  malformed_auth: 'Authorization must use the Bearer scheme.',
  invalid_auth: 'Authorization was refused.',
  missing_signature: 'A webhook signature is required.',
  stale_signature: 'The webhook signature timestamp is outside the tolerance.',
  invalid_signature: 'The webhook signature was refused.',
  body_too_large: 'The body is larger than this endpoint accepts.',
  invalid_body: 'The body is not a webhook this endpoint accepts.',
  in_progress: 'This event is being processed; retry later.',
  handler_failed: 'The event could not be processed; retry later.',
  handler_timeout: 'The event is still being processed; retry later.',
  store_unavailable: 'The event could not be recorded; retry later.',
  audit_unavailable: 'The delivery could not be recorded; retry later.',
  receiver_misconfigured:
    'The webhook endpoint is misconfigured: its framework read or parsed the body before the receiver (see its logs).',
};

const OUTCOMES: Readonly<Record<AnswerCode, ReceiveOutcome>> = {
  method_not_allowed: 'invalid',
  missing_auth: 'unauthorized',
  malformed_auth: 'unauthorized',
  invalid_auth: 'unauthorized',
  missing_signature: 'unauthorized',
  stale_signature: 'unauthorized',
  invalid_signature: 'unauthorized',
  body_too_large: 'too_large',
  invalid_body: 'invalid',
  in_progress: 'in_progress',
  handler_failed: 'handler_error',
  handler_timeout: 'handler_timeout',
  store_unavailable: 'store_unavailable',
  audit_unavailable: 'store_unavailable',
  receiver_misconfigured: 'misconfigured',
};

/** Seconds a sender should wait when the receiver cannot say better: the first retry delay. */
export const DEFAULT_RETRY_AFTER_SECONDS = Math.ceil(WEBHOOK_RETRY_DELAYS_MS[0] / 1000);

function json(
  outcome: ReceiveOutcome,
  code: AnswerCode | undefined,
  status: number,
  body: unknown,
  extra: Record<string, string> = {},
): ReceiverAnswer {
  return Object.freeze({
    outcome,
    ...(code === undefined ? {} : { code }),
    status,
    headers: Object.freeze({ [HEADERS.contentType]: JSON_CONTENT_TYPE, ...extra }),
    body: JSON.stringify(body),
  });
}

const PROCESSED = json('processed', undefined, WEBHOOK_SUCCESS_STATUS, { received: true });
const DUPLICATE = json('duplicate', undefined, WEBHOOK_SUCCESS_STATUS, { received: true, duplicate: true });
// Pure: a receiver without an inbox never answers it, and bundlers then leave it out.
const STALE = /* @__PURE__ */ json('stale', undefined, WEBHOOK_SUCCESS_STATUS, { received: true, stale: true });

/** 200: processed now, or already processed before. Shared frozen objects: adapters must copy, not mutate. */
export function acceptedAnswer(duplicate: boolean): ReceiverAnswer {
  return duplicate ? DUPLICATE : PROCESSED;
}

/** 200 for a result older than the one applied to its session (inbox mode): acknowledged, not acted on. */
export function staleAnswer(): ReceiverAnswer {
  return STALE;
}

// Answers are built once per distinct (status, code, Retry-After) and reused: a few dozen at most.
const cache = /* @__PURE__ */ new Map<string, ReceiverAnswer>();

/** An error answer with the right extra headers for its status. */
export function errorAnswer(status: number, code: AnswerCode, retryAfterSeconds?: number): ReceiverAnswer {
  const retryAfter = retryAfterSeconds === undefined ? undefined : String(Math.max(1, Math.ceil(retryAfterSeconds)));
  const cacheKey = `${status} ${code} ${retryAfter}`;
  const cached = cache.get(cacheKey);
  if (cached !== undefined) return cached;
  const extra: Record<string, string> = {};
  if (status === 401) extra[HEADERS.wwwAuthenticate] = AUTH_SCHEME;
  if (status === 405) extra[ALLOW_HEADER] = WEBHOOK_METHOD;
  if (retryAfter !== undefined) extra[HEADERS.retryAfter] = retryAfter;
  const answer = json(OUTCOMES[code], code, status, { error: { code, message: MESSAGES[code] } }, extra);
  // Retry-After of a 409 follows the remaining lease, so bound the cache rather than trust its variety.
  if (cache.size < 1000) cache.set(cacheKey, answer);
  return answer;
}
