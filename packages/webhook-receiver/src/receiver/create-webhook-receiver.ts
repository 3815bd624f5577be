import { CONTENT_LENGTH_HEADER, HEADERS, WEBHOOK_METHOD } from '@kyc/contracts/webhook-reader';
import { immediateAnswersOf } from '../idempotency/immediate-store.js';
import type { ClaimResult } from '../idempotency/store.js';
import { AUTH_MALFORMED, AUTH_MISSING, matchAuthorization } from '../match-authorization.js';
import { type KycWebhookEvent, parseWebhook } from '../parse-webhook.js';
import type { StandardWebhooksVerifier } from '../signatures/standard-webhooks.js';
import { isWebhookError } from '../webhook-error.js';
import { acceptedAnswer, DEFAULT_RETRY_AFTER_SECONDS, errorAnswer } from './answers.js';
import { errorFields } from './error-fields.js';
import { isThenable } from './is-thenable.js';
import type { AnswerCode } from './outcome.js';
import { finishRequest, RequestTrace } from './request-finished.js';
import { type ResolvedOptions, resolveOptions } from './resolve-options.js';
import { runClaimed } from './run-claimed.js';
import type { ReceiverAnswer, ReceiverInput, WebhookReceiver, WebhookReceiverOptions } from './types.js';
import { WebRequestInput } from './web-request-input.js';

function headerOf(input: ReceiverInput, name: string): string | undefined {
  const value = input.header(name);
  return typeof value === 'string' ? value : undefined;
}

function refuse(
  options: ResolvedOptions,
  status: number,
  code: AnswerCode,
  extra?: Record<string, unknown>,
): ReceiverAnswer {
  options.logger.warn?.('webhook rejected', { status, code, ...extra });
  return errorAnswer(status, code);
}

/** The rows decided by the method and the headers alone, before a byte of the body is read. */
function checkHead(options: ResolvedOptions, input: ReceiverInput, trace: RequestTrace): ReceiverAnswer | undefined {
  const { method } = input;
  if (method !== WEBHOOK_METHOD && method.toUpperCase() !== WEBHOOK_METHOD)
    return refuse(options, 405, 'method_not_allowed');

  // A declared length over the limit is refused before a byte is read.
  const declared = Number(headerOf(input, CONTENT_LENGTH_HEADER) ?? Number.NaN);
  if (Number.isFinite(declared) && declared > options.maxBodyBytes) return refuse(options, 413, 'body_too_large');

  if (options.authKeys !== undefined) {
    const matched = matchAuthorization(headerOf(input, HEADERS.authorization), options.authKeys);
    if (matched < 0) {
      return refuse(
        options,
        401,
        matched === AUTH_MISSING ? 'missing_auth' : matched === AUTH_MALFORMED ? 'malformed_auth' : 'invalid_auth',
      );
    }
    trace.authKeyIndex = matched;
  }
  return undefined;
}

function bodyRefused(options: ResolvedOptions, error: unknown): ReceiverAnswer {
  if (isWebhookError(error) && error.code === 'body_too_large') return refuse(options, 413, 'body_too_large');
  if (isWebhookError(error) && error.code === 'body_unreadable')
    return refuse(options, 400, 'invalid_body', { reason: error.code });
  // The framework consumed or parsed the body: our set-up is wrong, not the sender's request.
  options.logger.error?.(
    error instanceof Error ? error.message : 'the request body could not be read',
    errorFields(error),
  );
  return errorAnswer(500, 'receiver_misconfigured');
}

async function checkSignature(
  options: ResolvedOptions,
  signatures: StandardWebhooksVerifier,
  input: ReceiverInput,
  body: Uint8Array,
  trace: RequestTrace,
): Promise<ReceiverAnswer | undefined> {
  const headers = {
    id: trace.webhookId,
    timestamp: headerOf(input, HEADERS.webhookTimestamp),
    signature: headerOf(input, HEADERS.webhookSignature),
  };
  // Web Crypto rejecting (a runtime without HMAC, say) must refuse the delivery, never crash the request.
  const signature = await signatures.verify(headers, body).catch((error: unknown) => {
    options.logger.error?.('signature verification failed to run', errorFields(error));
    return { ok: false, code: 'invalid_signature' } as const;
  });
  trace.signature = { verified: signature.ok, secretIndex: signature.ok ? signature.secretIndex : undefined };
  return signature.ok ? undefined : refuse(options, 401, signature.code);
}

/**
 * Every answer of `receive` leaves through here, so the request-finished listeners (audit,
 * telemetry) run inside its own promise rather than on a `.then` layered on it, which cost each
 * request a promise and a turn of the microtask queue. Without listeners the answer goes straight
 * back; the list can shrink after the first request (telemetry without @opentelemetry/api), so
 * it is read each time.
 */
function finish(
  options: ResolvedOptions,
  trace: RequestTrace,
  answer: ReceiverAnswer,
): ReceiverAnswer | Promise<ReceiverAnswer> {
  const { listeners } = options;
  return listeners.length === 0 ? answer : finishRequest(listeners, trace, answer, options.logger);
}

/**
 * Each DESIGN "Receiver behaviour" row, in the order a request meets them. One async function
 * whose only awaits are the body, the signature (when configured), the store and the handler:
 * each further async layer would cost every request a promise and a turn of the microtask queue.
 */
async function receive(options: ResolvedOptions, input: ReceiverInput, trace: RequestTrace): Promise<ReceiverAnswer> {
  const refused = checkHead(options, input, trace);
  if (refused !== undefined) return finish(options, trace, refused);

  let body: Uint8Array;
  try {
    body = await input.readBody(options.maxBodyBytes);
  } catch (error) {
    return finish(options, trace, bodyRefused(options, error));
  }
  trace.body = body;

  const webhookId = headerOf(input, HEADERS.webhookId);
  trace.webhookId = webhookId;
  if (options.signatures !== undefined) {
    const unsigned = await checkSignature(options, options.signatures, input, body, trace);
    if (unsigned !== undefined) return finish(options, trace, unsigned);
  }

  let event: KycWebhookEvent;
  try {
    event = parseWebhook(body, { strict: options.strict, webhookId });
  } catch (error) {
    const code = isWebhookError(error) ? error.code : 'invalid_body';
    const issues = isWebhookError(error) ? error.issues.slice(0, 5) : [];
    return finish(options, trace, refuse(options, 400, 'invalid_body', { reason: code, issues }));
  }
  trace.event = event;

  // Inbox mode: the key lives in the customer's transaction, not in a claim store.
  if (options.inbox !== undefined) return finish(options, trace, await options.inbox(options, event, input, trace));
  const key = event.idempotencyKey;
  let claimed: ClaimResult;
  try {
    const immediate = immediateAnswersOf(options.store);
    claimed =
      immediate === undefined
        ? await options.store.claim(key, options.claimOptions)
        : immediate.claimNow(key, options.claimOptions);
  } catch (error) {
    options.logger.error?.('idempotency store: claim failed', { idempotencyKey: key, ...errorFields(error) });
    return finish(options, trace, errorAnswer(503, 'store_unavailable', DEFAULT_RETRY_AFTER_SECONDS));
  }
  if (claimed.outcome === 'completed') {
    options.logger.info?.('webhook already processed; handler not run', { idempotencyKey: key });
    return finish(options, trace, acceptedAnswer(true));
  }
  if (claimed.outcome === 'in_progress') {
    options.logger.info?.('webhook in progress elsewhere; answered 409', { idempotencyKey: key });
    return finish(options, trace, errorAnswer(409, 'in_progress', Math.max(1, claimed.retryAfterMs / 1000)));
  }
  // Awaited here: returning the promise itself would cost two more turns of the microtask queue;
  // an answer that is already there (a handler without a promise, the memory store) is not awaited.
  const ran = runClaimed(options, event, claimed.token, input, trace);
  return finish(options, trace, isThenable(ran) ? await ran : ran);
}

/** The answer as a Fetch API response, with a fresh headers object: some runtimes (e.g. @hono/node-server) write to it. */
function toResponse(answer: ReceiverAnswer): Response {
  return new Response(answer.body, { status: answer.status, headers: { ...answer.headers } });
}

/**
 * Creates a receiver that applies every rule of the DESIGN "Receiver behaviour" table: 405 for
 * other methods, 413 past the size limit (without reading the rest), 401 for a missing, wrong or
 * malformed `Authorization` (and a bad signature when `signingSecrets` is set), 400 for a body
 * that is not a webhook, then an atomic idempotency claim: 200 once the handler succeeded or when
 * the event was already processed, 409 while it runs elsewhere, 500 (claim released) when the
 * handler throws, 503 when it outlives `handlerTimeoutMs` (claim kept until it ends).
 *
 * Uses Web-standard APIs only: runs on Node, Bun, Deno and Workers.
 *
 * @throws {@link WebhookError} `invalid_option` when an option is wrong (e.g. a key shorter than 16 characters).
 * @example
 * const receiver = createWebhookReceiver({
 *   authKeys: [env.KYC_AUTH_KEY],
 *   onEvent: async (event) => {
 *     if (event.shape !== 'v1') await recordResult(event.sessionId, event.status);
 *   },
 * });
 * export const POST = (request: Request) => receiver.handle(request);
 */
export function createWebhookReceiver<Tx = undefined>(options: WebhookReceiverOptions<Tx>): WebhookReceiver {
  const resolved = resolveOptions(options as WebhookReceiverOptions<unknown>);
  const { now } = resolved;
  const run = (input: ReceiverInput): Promise<ReceiverAnswer> =>
    receive(resolved, input, new RequestTrace(now(), input));
  const receiver: WebhookReceiver = {
    receive: run,
    // Not async: the response is made on the receiver's own promise, with no layer on top.
    handle(request) {
      let answered: Promise<ReceiverAnswer>;
      try {
        answered = run(new WebRequestInput(request));
      } catch (error) {
        return Promise.reject(error);
      }
      return answered.then(toResponse);
    },
  };
  return receiver;
}
