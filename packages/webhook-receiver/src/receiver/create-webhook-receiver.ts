import { CONTENT_LENGTH_HEADER, HEADERS, WEBHOOK_METHOD } from '@kyc/contracts/webhook-reader';
import type { ClaimResult } from '../idempotency/store.js';
import { AUTH_MALFORMED, AUTH_MISSING, matchAuthorization } from '../match-authorization.js';
import { type KycWebhookEvent, parseWebhook } from '../parse-webhook.js';
import { isWebhookError } from '../webhook-error.js';
import { acceptedAnswer, DEFAULT_RETRY_AFTER_SECONDS, errorAnswer } from './answers.js';
import { errorFields } from './error-fields.js';
import { readWebBody } from './read-web-body.js';
import { finishRequest, type RequestTrace, startTrace } from './request-finished.js';
import { type ResolvedOptions, resolveOptions } from './resolve-options.js';
import { runClaimed } from './run-claimed.js';
import type { ReceiverAnswer, ReceiverInput, WebhookReceiver, WebhookReceiverOptions } from './types.js';

function headerOf(input: ReceiverInput, name: string): string | undefined {
  const value = input.header(name);
  return typeof value === 'string' ? value : undefined;
}

async function claim(options: ResolvedOptions, event: KycWebhookEvent): Promise<ClaimResult | undefined> {
  try {
    return await options.store.claim(event.idempotencyKey, { leaseMs: options.leaseMs });
  } catch (error) {
    options.logger.error?.('idempotency store: claim failed', {
      idempotencyKey: event.idempotencyKey,
      ...errorFields(error),
    });
    return undefined;
  }
}

/** Each DESIGN "Receiver behaviour" row, in the order a request meets them. */
async function receive(options: ResolvedOptions, input: ReceiverInput, trace: RequestTrace): Promise<ReceiverAnswer> {
  const { logger } = options;
  const reject = (status: number, code: Parameters<typeof errorAnswer>[1], extra: Record<string, unknown> = {}) => {
    logger.warn?.('webhook rejected', { status, code, ...extra });
    return errorAnswer(status, code);
  };

  if (input.method.toUpperCase() !== WEBHOOK_METHOD) return reject(405, 'method_not_allowed');

  // A declared length over the limit is refused before a byte is read.
  const declared = Number(headerOf(input, CONTENT_LENGTH_HEADER) ?? Number.NaN);
  if (Number.isFinite(declared) && declared > options.maxBodyBytes) return reject(413, 'body_too_large');

  if (options.authKeys !== undefined) {
    const matched = matchAuthorization(headerOf(input, HEADERS.authorization), options.authKeys);
    if (matched < 0) {
      return reject(
        401,
        matched === AUTH_MISSING ? 'missing_auth' : matched === AUTH_MALFORMED ? 'malformed_auth' : 'invalid_auth',
      );
    }
    trace.authKeyIndex = matched;
  }

  let body: Uint8Array;
  try {
    body = await input.readBody(options.maxBodyBytes);
  } catch (error) {
    if (isWebhookError(error) && error.code === 'body_too_large') return reject(413, 'body_too_large');
    if (isWebhookError(error) && error.code === 'body_unreadable')
      return reject(400, 'invalid_body', { reason: error.code });
    // The framework consumed or parsed the body: our set-up is wrong, not the sender's request.
    logger.error?.(error instanceof Error ? error.message : 'the request body could not be read', errorFields(error));
    return errorAnswer(500, 'receiver_misconfigured');
  }
  trace.body = body;

  const webhookId = headerOf(input, HEADERS.webhookId);
  trace.webhookId = webhookId;
  if (options.signatures !== undefined) {
    const headers = {
      id: webhookId,
      timestamp: headerOf(input, HEADERS.webhookTimestamp),
      signature: headerOf(input, HEADERS.webhookSignature),
    };
    // Web Crypto rejecting (a runtime without HMAC, say) must refuse the delivery, never crash the request.
    const signature = await options.signatures.verify(headers, body).catch((error: unknown) => {
      logger.error?.('signature verification failed to run', errorFields(error));
      return { ok: false, code: 'invalid_signature' } as const;
    });
    trace.signature = { verified: signature.ok, secretIndex: signature.ok ? signature.secretIndex : undefined };
    if (!signature.ok) return reject(401, signature.code);
  }

  let event: KycWebhookEvent;
  try {
    event = parseWebhook(body, { strict: options.strict, webhookId });
  } catch (error) {
    const code = isWebhookError(error) ? error.code : 'invalid_body';
    const issues = isWebhookError(error) ? error.issues.slice(0, 5) : [];
    return reject(400, 'invalid_body', { reason: code, issues });
  }
  trace.event = event;

  const claimed = await claim(options, event);
  if (claimed === undefined) return errorAnswer(503, 'store_unavailable', DEFAULT_RETRY_AFTER_SECONDS);
  if (claimed.outcome === 'completed') {
    logger.info?.('webhook already processed; handler not run', { idempotencyKey: event.idempotencyKey });
    return acceptedAnswer(true);
  }
  if (claimed.outcome === 'in_progress') {
    logger.info?.('webhook in progress elsewhere; answered 409', { idempotencyKey: event.idempotencyKey });
    return errorAnswer(409, 'in_progress', Math.max(1, claimed.retryAfterMs / 1000));
  }
  return runClaimed(options, event, claimed.token, input, trace);
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
export function createWebhookReceiver(options: WebhookReceiverOptions): WebhookReceiver {
  const resolved = resolveOptions(options);
  const { listeners, logger, now } = resolved;
  const run = async (input: ReceiverInput): Promise<ReceiverAnswer> => {
    const trace = startTrace(now(), (name) => headerOf(input, name));
    const answer = await receive(resolved, input, trace);
    return listeners.length === 0 ? answer : finishRequest(listeners, trace, answer, logger);
  };
  const receiver: WebhookReceiver = {
    receive: run,
    async handle(request) {
      const answer = await run({
        method: request.method,
        header: (name) => request.headers.get(name),
        readBody: (maxBytes) => readWebBody(request, maxBytes),
      });
      // A fresh headers object: some runtimes (e.g. @hono/node-server) write to it.
      return new Response(answer.body, { status: answer.status, headers: { ...answer.headers } });
    },
  };
  return receiver;
}
