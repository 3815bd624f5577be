import { DeliveryEngineError } from '../delivery-engine-error.js';
import { bodyOf } from '../store/body-bytes.js';
import type { AttemptRecord, DeliveryClaim, DeliveryStore } from '../store/store.js';
import type { EngineTelemetry } from '../telemetry/engine-telemetry.js';
import type { AttemptOutcome, AttemptResult } from '../transport/types.js';
import type { Clock } from './clock.js';
import { type AttemptSecrets, attemptSecrets, type CredentialsHook, hookFailure } from './credentials.js';
import { attemptHeaders, redactHeaders } from './headers.js';
import type { AttemptEvent, DeliveryEngineLogger, ResolvedOptions } from './options.js';
import { planNextAttempt } from './schedule.js';
import type { TargetedSend } from './select-transport.js';

/** The outcome recorded when a delivery's lease was lost `maxWorkerLosses` times in a row. */
export const WORKER_LOST_OUTCOME = 'worker_lost';

/**
 * The outcome recorded when an attempt had no usable credentials: the `credentials` hook threw,
 * answered garbage or did not answer in time, or a sealed value could not be opened. Nothing was
 * sent; the attempt counts as failed and the delivery is retried on the schedule.
 */
export const CREDENTIALS_ERROR_OUTCOME = 'credentials_error';

/** Every outcome class an attempt-log row can carry. */
export type DeliveryOutcome = AttemptOutcome | typeof WORKER_LOST_OUTCOME | typeof CREDENTIALS_ERROR_OUTCOME;

type RecordedResult = Omit<AttemptResult, 'outcome'> & { readonly outcome: DeliveryOutcome };

/** Sends one request of one claimed delivery; never throws (the transport maps every failure to an outcome). */
export type SendFunction = TargetedSend;

export interface AttemptContext {
  readonly store: DeliveryStore<unknown>;
  readonly clock: Clock;
  readonly send: SendFunction;
  readonly options: ResolvedOptions;
  readonly signingSecret: string | undefined;
  readonly credentials: CredentialsHook | undefined;
  readonly onAttempt: ((event: AttemptEvent) => void | Promise<void>) | undefined;
  readonly logger: DeliveryEngineLogger | undefined;
  /** Aborted when `stop()` gives up waiting: the claim is then released, not recorded. */
  readonly abort: AbortSignal;
  readonly telemetry: EngineTelemetry;
}

/** The W3C trace context header (lower case, as the protocol's other header names). */
const TRACEPARENT_HEADER = 'traceparent';

/**
 * One attempt of one claimed delivery, start to finish: build the headers, send, call `sent`
 * (the HTTP slot is free again; `true` if the exchange ran out of time), decide the next state,
 * record it under the claim's fencing token. Errors never escape: a failed write leaves the lease
 * to expire, and the delivery is retried (at-least-once).
 */
export async function runAttempt(
  ctx: AttemptContext,
  claim: DeliveryClaim,
  sent: (timedOut: boolean) => void,
): Promise<void> {
  const attemptNumber = claim.attempts + 1;
  const startedAt = ctx.clock.now();
  let headers: Record<string, string> = {};
  let result: RecordedResult;
  const workerLost = claim.lostLeases >= ctx.options.maxWorkerLosses;
  const span = ctx.telemetry.startAttempt(claim);
  if (workerLost) {
    // Something about this delivery may be killing workers (a huge response, a bug): stop
    // retrying it blindly and let the schedule count it like any other failure.
    result = {
      outcome: WORKER_LOST_OUTCOME,
      latencyMs: 0,
      errorMessage: `lease lost ${claim.lostLeases} times in a row without a result (worker crash or stall); counted as a failed attempt`,
    };
  } else {
    const body = bodyOf(claim);
    let prepared = prepareHeaders(ctx, claim, attemptNumber, startedAt, body);
    // Awaited only when the credentials hook answered with a promise: the usual attempt takes no extra turn.
    if (prepared instanceof Promise) prepared = await prepared;
    if (prepared === STOPPED) {
      // stop() gave up while the credentials hook was still answering: nothing was sent.
      sent(false);
      span.abandon();
      await releaseOnStop(ctx, claim);
      return;
    }
    if (prepared instanceof DeliveryEngineError) {
      ctx.logger?.error?.('no credentials for an attempt: nothing sent; it is retried on the schedule', {
        deliveryId: claim.id,
        attempt: attemptNumber,
        error: describe(prepared),
      });
      result = {
        outcome: CREDENTIALS_ERROR_OUTCOME,
        latencyMs: 0,
        errorMessage: `${prepared.code}: ${prepared.message}; nothing was sent`,
      };
    } else {
      headers = prepared;
      if (ctx.options.propagateTraceContext && span.traceParent !== undefined) {
        headers[TRACEPARENT_HEADER] = span.traceParent;
      }
      result = await ctx.send({ url: claim.url, headers, body }, ctx.abort, claim);
    }
  }
  sent(result.outcome === 'timeout');
  // Aborted by stop() before the exchange ended: give the claim back unrecorded. An exchange
  // that finished before the abort (any other outcome) is recorded like any other, so a 200
  // that arrived just in time is not sent again.
  if (ctx.abort.aborted && !workerLost && result.outcome === 'timeout') {
    span.abandon();
    await releaseOnStop(ctx, claim);
    return;
  }
  const finishedAt = ctx.clock.now();
  const outcome = result.outcome;
  const transition = planNextAttempt(outcome, claim.roundAttempts + 1, finishedAt, { jitter: ctx.options.jitter });
  const record: AttemptRecord = {
    attempt: attemptNumber,
    round: claim.round,
    startedAt,
    requestHeaders: redactHeaders(headers),
    status: result.status,
    outcome,
    dialedAddress: result.dialedAddress,
    latencyMs: result.latencyMs,
    responseSnippet: result.responseSnippet,
    errorMessage: result.errorMessage,
    unrecordedSends: claim.lostLeases,
  };
  let recorded: boolean;
  try {
    recorded = await ctx.store.complete(claim, record, transition);
  } catch (error) {
    span.end(result);
    ctx.logger?.error?.('could not record an attempt; the delivery is retried when its lease ends', {
      deliveryId: claim.id,
      attempt: attemptNumber,
      error: describe(error),
    });
    return;
  }
  span.end(result, recorded ? { transition, now: finishedAt } : undefined);
  if (!recorded) {
    ctx.logger?.warn?.('lease lost before the result was recorded; another worker owns this delivery now', {
      deliveryId: claim.id,
      attempt: attemptNumber,
      outcome,
    });
    return;
  }
  const hookFailed = (error: unknown) => {
    ctx.logger?.warn?.('onAttempt hook threw; ignored', { deliveryId: claim.id, error: describe(error) });
  };
  try {
    const returned: unknown = ctx.onAttempt?.({
      deliveryId: claim.id,
      url: claim.url,
      attempt: record,
      state: transition.state,
      nextAttemptAt: transition.nextAttemptAt,
      traceParent: span.traceParent,
    });
    // An async hook's rejection would otherwise be unhandled and, by Node's default, end the process.
    if (returned instanceof Promise) returned.catch(hookFailed);
  } catch (error) {
    hookFailed(error);
  }
}

/** What {@link prepareHeaders} answers when `stop()` aborted the attempt before it was sent. */
const STOPPED = Symbol('stopped');

/** The headers to send, the typed error to record instead, or {@link STOPPED}. */
type Prepared = Record<string, string> | DeliveryEngineError | typeof STOPPED;

/**
 * The attempt's headers with its credentials: the `credentials` hook's, else the store's opened
 * once for this attempt. A failure to get them (or to sign with what the hook gave) is returned
 * as the typed error to record, never thrown: the attempt is then not sent.
 */
function prepareHeaders(
  ctx: AttemptContext,
  claim: DeliveryClaim,
  attemptNumber: number,
  startedAt: number,
  body: string | Uint8Array,
): Prepared | Promise<Prepared> {
  let found: AttemptSecrets | Promise<AttemptSecrets>;
  try {
    found = attemptSecrets(ctx, claim, attemptNumber);
  } catch (error) {
    return notPrepared(ctx, error);
  }
  if (!(found instanceof Promise)) return headersWith(ctx, claim, attemptNumber, startedAt, body, found);
  return found.then(
    (secrets) => headersWith(ctx, claim, attemptNumber, startedAt, body, secrets),
    (error: unknown) => notPrepared(ctx, error),
  );
}

function headersWith(
  ctx: AttemptContext,
  claim: DeliveryClaim,
  attemptNumber: number,
  startedAt: number,
  body: string | Uint8Array,
  secrets: AttemptSecrets,
): Prepared {
  try {
    return attemptHeaders({
      id: claim.id,
      attempt: attemptNumber,
      // Checked by the receiver against its own wall clock (5 minutes' tolerance): wall time,
      // also when the schedule runs on a scaled clock.
      timestampMs: ctx.clock.toWall?.(startedAt) ?? startedAt,
      body,
      authKey: secrets.authKey,
      signingSecret: secrets.signingSecret,
    });
  } catch (error) {
    // Only a secret the hook gave can fail here: stored ones were checked at enqueue.
    return hookFailure(error);
  }
}

function notPrepared(ctx: AttemptContext, error: unknown): Prepared {
  if (ctx.abort.aborted) return STOPPED;
  return error instanceof DeliveryEngineError ? error : hookFailure(error);
}

async function releaseOnStop(ctx: AttemptContext, claim: DeliveryClaim): Promise<void> {
  await ctx.store.release(claim).catch((error: unknown) => {
    ctx.logger?.warn?.('could not release a claim on stop; it is retried when its lease ends', {
      deliveryId: claim.id,
      error: describe(error),
    });
  });
}

export function describe(error: unknown): string {
  if (error instanceof DeliveryEngineError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
