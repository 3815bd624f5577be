import { immediateAnswersOf } from '../idempotency/immediate-store.js';
import type { KycWebhookEvent } from '../parse-webhook.js';
import { acceptedAnswer, DEFAULT_RETRY_AFTER_SECONDS, errorAnswer } from './answers.js';
import { errorFields } from './error-fields.js';
import { HandlerContext } from './handler-context.js';
import { isThenable } from './is-thenable.js';
import { keepClaim } from './keep-claim.js';
import type { RequestTrace } from './request-finished.js';
import type { ResolvedOptions } from './resolve-options.js';
import type { ReceiverAnswer, ReceiverInput } from './types.js';

/** Log fields of an event (never its body), and of an error when there is one. */
function eventFields(event: KycWebhookEvent, error?: unknown): Record<string, unknown> {
  const fields = { idempotencyKey: event.idempotencyKey, sessionId: event.sessionId };
  return error === undefined ? fields : { ...fields, ...errorFields(error) };
}

/** The handler threw or rejected: release the claim so a retry runs it, answer 500. */
async function failed(
  options: ResolvedOptions,
  event: KycWebhookEvent,
  token: string,
  error: unknown,
): Promise<ReceiverAnswer> {
  const { logger } = options;
  logger.error?.('webhook handler failed; claim released so a retry runs it', eventFields(event, error));
  try {
    await options.store.release(event.idempotencyKey, token);
  } catch (releaseError) {
    logger.error?.('idempotency store: release failed', eventFields(event, releaseError));
  }
  return errorAnswer(500, 'handler_failed');
}

/**
 * The handler succeeded: record it, answer 200 — even when the store fails now, since the work
 * is done and must not run again. A `.then` on the store's promise rather than an async
 * function: every request that runs a handler comes here, and an async frame was the larger
 * allocation. A store that answers at once (the memory store) is not awaited at all.
 */
function completed(
  options: ResolvedOptions,
  event: KycWebhookEvent,
  token: string,
): ReceiverAnswer | Promise<ReceiverAnswer> {
  const { logger } = options;
  const done = () => {
    logger.info?.('webhook processed', eventFields(event));
    return acceptedAnswer(false);
  };
  const lost = (error: unknown) => {
    logger.error?.('idempotency store: complete failed', eventFields(event, error));
    return done();
  };
  try {
    const immediate = immediateAnswersOf(options.store);
    if (immediate !== undefined) {
      immediate.completeNow(event.idempotencyKey, token, options.completeOptions);
      return done();
    }
    // Promise.resolve: a store may answer with any thenable; a native promise passes as it is.
    return Promise.resolve(options.store.complete(event.idempotencyKey, token, options.completeOptions)).then(
      done,
      lost,
    );
  } catch (error) {
    return lost(error);
  }
}

/**
 * An asynchronous handler: the claim is kept alive while it runs, and after `handlerTimeoutMs`
 * the answer is 503 while the handler goes on (the claim stays until it really ends).
 */
async function awaitHandler(
  options: ResolvedOptions,
  event: KycWebhookEvent,
  token: string,
  context: HandlerContext,
  result: PromiseLike<unknown>,
  ended: () => void,
): Promise<ReceiverAnswer> {
  const { logger } = options;
  const fields = eventFields(event);
  const stopKeeping = keepClaim(options, event.idempotencyKey, token, fields);
  const settled = Promise.resolve(result).then(
    () => {
      ended();
      return stopKeeping().then(() => completed(options, event, token));
    },
    (error: unknown) => {
      ended();
      return stopKeeping().then(() => failed(options, event, token, error));
    },
  );

  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<ReceiverAnswer>((resolve) => {
    timer = setTimeout(() => {
      logger.warn?.('webhook handler still running; answered 503 and kept the claim', {
        ...fields,
        handlerTimeoutMs: options.handlerTimeoutMs,
      });
      ended();
      HandlerContext.abort(context, new Error('The receiver answered 503 while the handler was still running.'));
      resolve(errorAnswer(503, 'handler_timeout', DEFAULT_RETRY_AFTER_SECONDS));
    }, options.handlerTimeoutMs);
  });
  try {
    return await Promise.race([settled, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs one claimed event — the DESIGN rows "handler runs once", "handler throws" (500, claim
 * released) and "still running after 25 s" (503, claim kept — its lease renewed — until the
 * handler really ends). A handler that returns without a promise has already ended: no timer,
 * no lease renewal, no promise beyond the store's (none with the memory store). Not itself
 * async: the caller awaits the one promise it returns, or takes the answer when there is none.
 */
export function runClaimed(
  options: ResolvedOptions,
  event: KycWebhookEvent,
  token: string,
  input: ReceiverInput,
  trace: RequestTrace,
): ReceiverAnswer | Promise<ReceiverAnswer> {
  const context = new HandlerContext(event.idempotencyKey, event.webhookId, input);
  const handlerStart = performance.now();
  let result: unknown;
  try {
    result = options.onEvent(event, context);
  } catch (error) {
    trace.handlerMs = performance.now() - handlerStart;
    return failed(options, event, token, error);
  }
  if (!isThenable(result)) {
    trace.handlerMs = performance.now() - handlerStart;
    return completed(options, event, token);
  }
  // The timeout may end the wait first: only the first end counts.
  const ended = () => {
    trace.handlerMs ??= performance.now() - handlerStart;
  };
  return awaitHandler(options, event, token, context, result, ended);
}
