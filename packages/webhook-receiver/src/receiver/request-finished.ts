import type { InboxOutcome } from '../inbox/types.js';
import type { KycWebhookEvent } from '../parse-webhook.js';
import { errorFields } from './error-fields.js';
import { isThenable } from './is-thenable.js';
import type { ReceiverAnswer, ReceiverInput, ReceiverLogger } from './types.js';

/**
 * The internal "request finished" event: one per request that reached `receive`, whatever the
 * outcome, emitted once the answer is decided and before any adapter writes it. It is the one
 * seam that per-request observers hang on — the audit trail (issue 16) and OpenTelemetry
 * (issue 11) — so that neither threads code through the rows of `receive`.
 *
 * Contract for listeners (see {@link RequestFinishedListener}):
 * - they run one after another, in the order `resolveOptions` lists them (audit first, so that a
 *   later observer such as telemetry sees the final answer);
 * - a listener may return a replacement answer (the audit trail's fail-closed 503); the
 *   following listeners see it in `answer`, and it is what the sender gets;
 * - a listener that throws is logged and skipped: it never changes the answer;
 * - `body` holds the raw bytes (personal data): copy it only when the customer asked for it.
 * Not exported from the package: an internal contract between the receiver's own parts.
 */
export interface RequestFinished {
  /** The answer so far: `outcome`, `status`, `code`. */
  readonly answer: ReceiverAnswer;
  /** `options.now()` when `receive` began: epoch milliseconds. */
  readonly receivedAt: number;
  /** From the start of `receive` until the answer was decided, in milliseconds (`performance.now`). */
  readonly durationMs: number;
  /** How long the handler ran before the answer (until the timeout for `handler_timeout`); unset when it did not run. */
  readonly handlerMs: number | undefined;
  /** The `Webhook-Id` header, when sent. */
  readonly webhookId: string | undefined;
  /** The parsed event (session id, status, idempotency key), when the body parsed. */
  readonly event: KycWebhookEvent | undefined;
  /** The raw body, when it was read. */
  readonly body: Uint8Array | undefined;
  /** Position in `authKeys` of the key that matched; unset when no key matched or none is configured. */
  readonly authKeyIndex: number | undefined;
  /** The Standard Webhooks check, when `signingSecrets` is set and it ran. */
  readonly signature: { readonly verified: boolean; readonly secretIndex: number | undefined } | undefined;
  /** Inbox mode: what the inbox did (effect committed, rolled back, duplicate …); unset otherwise or before the inbox. */
  readonly inbox: InboxOutcome | undefined;
  /** A request header by lower-case name. */
  header(name: string): string | undefined;
}

/** Observes a finished request; may return a replacement answer (see {@link RequestFinished}). */
export type RequestFinishedListener = (
  finished: RequestFinished,
) => ReceiverAnswer | undefined | Promise<ReceiverAnswer | undefined>;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * The same event while `receive` fills it in. A class, so that every request's trace has one
 * shape and reads its headers through the request itself rather than through a new closure.
 */
export class RequestTrace implements Mutable<Omit<RequestFinished, 'header'>> {
  answer = undefined as unknown as ReceiverAnswer;
  /** `performance.now()` at the start. */
  readonly startedAt = performance.now();
  durationMs = 0;
  handlerMs: number | undefined = undefined;
  webhookId: string | undefined = undefined;
  event: KycWebhookEvent | undefined = undefined;
  body: Uint8Array | undefined = undefined;
  authKeyIndex: number | undefined = undefined;
  signature: RequestFinished['signature'] = undefined;
  inbox: InboxOutcome | undefined = undefined;

  constructor(
    readonly receivedAt: number,
    private readonly input: Pick<ReceiverInput, 'header'>,
  ) {}

  header(name: string): string | undefined {
    const value = this.input.header(name);
    return typeof value === 'string' ? value : undefined;
  }
}

/** A fresh trace for one request. */
export function startTrace(receivedAt: number, input: Pick<ReceiverInput, 'header'>): RequestTrace {
  return new RequestTrace(receivedAt, input);
}

/**
 * Runs every listener on the finished trace and returns the answer to send: at once when every
 * listener answers at once (telemetry), a promise from the first that answers with one (the
 * audit trail). Not an async function: an async layer per request costs a promise, its frame and
 * a turn of the microtask queue, for nothing when no listener waits.
 */
export function finishRequest(
  listeners: readonly RequestFinishedListener[],
  trace: RequestTrace,
  answer: ReceiverAnswer,
  logger: ReceiverLogger,
): ReceiverAnswer | Promise<ReceiverAnswer> {
  trace.answer = answer;
  trace.durationMs = performance.now() - trace.startedAt;
  return runListeners(listeners, 0, trace, logger);
}

function failed(logger: ReceiverLogger, error: unknown): void {
  logger.error?.('a request-finished listener failed; the answer stands', errorFields(error));
}

function runListeners(
  listeners: readonly RequestFinishedListener[],
  from: number,
  trace: RequestTrace,
  logger: ReceiverLogger,
): ReceiverAnswer | Promise<ReceiverAnswer> {
  for (let index = from; index < listeners.length; index++) {
    let replaced: ReturnType<RequestFinishedListener>;
    try {
      replaced = (listeners[index] as RequestFinishedListener)(trace);
    } catch (error) {
      failed(logger, error);
      continue;
    }
    if (isThenable(replaced)) return awaitListener(replaced, listeners, index, trace, logger);
    if (replaced !== undefined) trace.answer = replaced;
  }
  return trace.answer;
}

async function awaitListener(
  pending: PromiseLike<ReceiverAnswer | undefined>,
  listeners: readonly RequestFinishedListener[],
  index: number,
  trace: RequestTrace,
  logger: ReceiverLogger,
): Promise<ReceiverAnswer> {
  try {
    const replaced = await pending;
    if (replaced !== undefined) trace.answer = replaced;
  } catch (error) {
    failed(logger, error);
  }
  // Not `return await`: the listeners after it (telemetry) answer at once, and awaiting that
  // answer would cost each request one more turn of the microtask queue.
  return runListeners(listeners, index + 1, trace, logger);
}
