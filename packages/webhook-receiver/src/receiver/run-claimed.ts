import type { KycWebhookEvent } from '../parse-webhook.js';
import { acceptedAnswer, DEFAULT_RETRY_AFTER_SECONDS, errorAnswer } from './answers.js';
import { errorFields } from './error-fields.js';
import { HandlerContext } from './handler-context.js';
import { keepClaim } from './keep-claim.js';
import type { RequestTrace } from './request-finished.js';
import type { ResolvedOptions } from './resolve-options.js';
import type { ReceiverAnswer, ReceiverInput } from './types.js';

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/**
 * Runs one claimed event — the DESIGN rows "handler runs once", "handler throws" (500, claim
 * released) and "still running after 25 s" (503, claim kept — its lease renewed — until the
 * handler really ends).
 */
export async function runClaimed(
  options: ResolvedOptions,
  event: KycWebhookEvent,
  token: string,
  input: ReceiverInput,
  trace: RequestTrace,
): Promise<ReceiverAnswer> {
  const { store, logger } = options;
  const key = event.idempotencyKey;
  const fields = { idempotencyKey: key, sessionId: event.sessionId };
  const context = new HandlerContext(key, event.webhookId, input);

  const failed = async (error: unknown): Promise<ReceiverAnswer> => {
    logger.error?.('webhook handler failed; claim released so a retry runs it', { ...fields, ...errorFields(error) });
    await store.release(key, token).catch((releaseError: unknown) => {
      logger.error?.('idempotency store: release failed', { ...fields, ...errorFields(releaseError) });
    });
    return errorAnswer(500, 'handler_failed');
  };
  const completed = async (): Promise<ReceiverAnswer> => {
    // The work is done: a store failure now must not make the sender run it again, so answer 200 anyway.
    await store.complete(key, token, { ttlMs: options.ttlMs }).catch((completeError: unknown) => {
      logger.error?.('idempotency store: complete failed', { ...fields, ...errorFields(completeError) });
    });
    logger.info?.('webhook processed', fields);
    return acceptedAnswer(false);
  };

  const handlerStart = performance.now();
  const ended = () => {
    trace.handlerMs = performance.now() - handlerStart;
  };
  let result: unknown;
  try {
    result = options.onEvent(event, context);
  } catch (error) {
    ended();
    return failed(error);
  }
  // A synchronous handler has already ended: no timer needed.
  if (!isThenable(result)) {
    ended();
    return completed();
  }
  const stopKeeping = keepClaim(options, key, token, fields);
  const settled = Promise.resolve(result).then(
    () => {
      ended();
      return stopKeeping().then(completed);
    },
    (error: unknown) => {
      ended();
      return stopKeeping().then(() => failed(error));
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
