import { isHTTPError, isTimeoutError, type KyInstance, type Options } from 'ky';
import {
  KycAbortError,
  KycApiError,
  KycConnectionError,
  type KycError,
  type KycRequestInfo,
  KycTimeoutError,
} from './errors.js';
import { runtimeNetworkFailure } from './network-failure.js';
import type { Exchange, FailedResponse } from './read-response.js';
import type { Scrubber } from './redact.js';
import { backoffDelayMs } from './retry-policy.js';
import type { StartAttempt } from './telemetry/client-telemetry.js';
import { traceAttempt } from './telemetry/trace-attempt.js';

/** What {@link KycClientOptions.onRetry} receives before each retry wait. */
export interface KycRetryEvent {
  readonly method: string;
  readonly url: string;
  /** The attempt that just failed, from 1. */
  readonly attempt: number;
  /** Attempts allowed in all: `maxRetries + 1`. */
  readonly maxAttempts: number;
  /** How long the client waits before the next attempt. */
  readonly delayMs: number;
  /** The wait `Retry-After` asked for, when the service sent one (then `delayMs` equals it). */
  readonly retryAfterMs: number | undefined;
  /** Why the attempt failed (secret-free). */
  readonly error: KycError;
}

/** A logger the client writes one `warn` line to per retry. `console` fits. */
export interface KycLogger {
  warn(message: string, fields: Record<string, unknown>): void;
}

/** Waits `ms`, rejecting early when `signal` aborts. */
export type KycSleep = (ms: number, signal: AbortSignal) => Promise<void>;

/** Everything one call needs; assembled by the client. */
export interface RequestPlan {
  /** Built once per client with the timeouts and the retry limit and methods. */
  readonly ky: KyInstance;
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | undefined;
  /** The request as errors show it (headers redacted). */
  readonly request: KycRequestInfo;
  readonly scrub: Scrubber;
  readonly timeoutMs: number;
  readonly deadlineMs: number;
  readonly maxRetries: number;
  readonly signal: AbortSignal | undefined;
  /** The caller's fetch; `globalThis.fetch` (looked up per call) when absent. */
  readonly fetch: typeof globalThis.fetch | undefined;
  readonly onRetry?: ((event: KycRetryEvent) => void) | undefined;
  readonly logger?: KycLogger | undefined;
  readonly sleep?: KycSleep | undefined;
  readonly random?: (() => number) | undefined;
  /** Opens one tracing span per attempt (a no-op without OpenTelemetry). */
  readonly startAttempt?: StartAttempt | undefined;
}

/**
 * The ky options every call of one client shares: ky runs the attempts, bounds each one
 * (`timeout`) and the whole call, waits included (`totalTimeout`), retries at most `limit`
 * times, only GET and POST (finishing is idempotent, so POST is safe to send again), and
 * waits between attempts. Redirects are not followed, so the Basic credentials never travel
 * to wherever a `Location` points.
 *
 * @example
 * const instance = ky.create(kyDefaults({ timeoutMs: 10_000, deadlineMs: 90_000, maxRetries: 2 }));
 */
export function kyDefaults(limits: { timeoutMs: number; deadlineMs: number; maxRetries: number }): Options {
  return {
    timeout: limits.timeoutMs,
    totalTimeout: limits.deadlineMs,
    retry: { limit: limits.maxRetries, methods: ['get', 'post'] },
    throwHttpErrors: true,
    redirect: 'manual',
  };
}

/**
 * Sends a request through ky until it gets a 2xx or a final error, and returns the 2xx
 * exchange; throws only `KycError`s.
 *
 * ky carries the attempts, the per-attempt and overall timers, the abort of an attempt and of
 * a wait by the caller's signal, and the wait itself. What stays here is what ky's retry
 * options cannot say, each marked "ky can't" below:
 * - the decision (`shouldRetry` answers every time) and the wait it plans, because the
 *   service's `Retry-After` is honoured only up to a cap and a longer one fails at once (ky's
 *   `maxRetryAfter` clamps and waits instead), because a wait that would outlast the deadline
 *   fails at once with the last answer (ky sleeps out the rest and throws a bare timeout),
 *   and because `onRetry` and the logger promise the wait's length *before* it starts (ky's
 *   `beforeRetry` runs after it);
 * - reading the body inside the attempt, so `timeoutMs` covers a stalled body and such an
 *   attempt is retried (ky's `timeout` stops at the headers; its body-read timer is a second
 *   window and is never retried);
 * - an injected `sleep` (ky's wait is a bare `setTimeout`);
 * - the typed, secret-free errors (ky's errors carry the `Request`, credentials included).
 */
export async function runWithRetries(
  plan: RequestPlan,
  readFailure: (exchange: Exchange) => FailedResponse,
): Promise<Exchange> {
  const { signal: userSignal, request } = plan;
  if (userSignal?.aborted) throw abortError(plan, userSignal);
  const startedAt = performance.now();
  // The latest attempt's body and failure; ky holds only one attempt in flight at a time.
  let text = '';
  let lastFailure: FailedResponse | undefined;
  let lastFailed: unknown;
  let plannedDelayMs = 0;
  const customFetch = plan.fetch;

  // ky can't: its timeout stops at the headers. Reading the body inside the fetch ky times
  // puts the whole exchange under one attempt timer.
  let attempts = 0;
  // Not async: without a span it hands ky the attempt's own promise, one promise layer fewer per call.
  const fetchWhole = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const span = input instanceof Request ? plan.startAttempt?.(input, attempts++) : undefined;
    const attempt = fetchAttempt(input, init);
    if (span === undefined) return attempt;
    return traceAttempt(span, (input as Request).signal, attempt, () => userSignal?.aborted === true);
  };
  const fetchAttempt = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    // `globalThis.fetch` is looked up per call (and called as a method, as browsers require).
    if (customFetch === undefined) {
      const response = await globalThis.fetch(input, init);
      text = await response.text();
      return response;
    }
    // A caller's fetch (or mock) may ignore the signal, or not abort a body stream: racing the
    // signal ky put on the request keeps the caller's abort prompt. ky's timers race on their own.
    const signal = (input as Request).signal;
    const response = await abortable(customFetch(input, init), signal);
    text = await abortable(response.text(), signal);
    return response;
  };

  const describe = (error: unknown): FailedResponse => {
    if (isHTTPError(error)) return readFailure({ response: error.response, text, request });
    if (isTimeoutError(error)) {
      const timeout = new KycTimeoutError(
        `KYC API gave no complete response within timeoutMs=${plan.timeoutMs} (${request.method} ${request.url})`,
        { kind: 'attempt', timeoutMs: plan.timeoutMs, request },
      );
      return { error: timeout, retryable: true, retryAfterMs: undefined };
    }
    const { cause, text: what } = runtimeNetworkFailure(error);
    const connection = new KycConnectionError(
      `KYC API request failed on the network (${request.method} ${request.url}): ${plan.scrub(what)}`,
      { request, cause },
    );
    return { error: connection, retryable: true, retryAfterMs: undefined };
  };

  // ky can't (see above): the retry decision, the planned wait and the announcement.
  const shouldRetry = ({ error, retryCount }: { error: Error; retryCount: number }): boolean => {
    if (userSignal?.aborted) return false;
    const failure = describe(error);
    lastFailure = failure;
    lastFailed = error;
    if (!failure.retryable) return false;
    const delayMs = failure.retryAfterMs ?? backoffDelayMs(retryCount - 1, plan.random);
    // A wait that outlasts the deadline only delays the same answer: give it now.
    if (delayMs >= plan.deadlineMs - (performance.now() - startedAt)) return false;
    plannedDelayMs = delayMs;
    announce(plan, {
      attempt: retryCount,
      maxAttempts: plan.maxRetries + 1,
      delayMs,
      retryAfterMs: failure.retryAfterMs,
      error: failure.error,
    });
    return true;
  };

  const { sleep } = plan;
  const options: Options = {
    method: plan.method,
    headers: plan.headers,
    ...(plan.body !== undefined && { body: plan.body }),
    fetch: fetchWhole,
    // ky waits the planned time itself, unless a `sleep` was injected (ky can't take one):
    // then ky's own wait is 0 and `beforeRetry` waits through it. ky races the hook against
    // the deadline; the caller's signal ends it here.
    retry: { shouldRetry, delay: sleep ? () => 0 : () => plannedDelayMs },
    ...(sleep && {
      hooks: {
        beforeRetry: [
          () => {
            const left = Math.max(1, Math.ceil(plan.deadlineMs - (performance.now() - startedAt)));
            const timer = AbortSignal.timeout(left);
            const signal = userSignal ? AbortSignal.any([userSignal, timer]) : timer;
            return abortable(sleep(plannedDelayMs, signal), signal);
          },
        ],
      },
    }),
    // Passed only when given: ky links a signal to its own controller on every call.
    ...(userSignal && { signal: userSignal }),
  };

  try {
    const response = await plan.ky(plan.url, options);
    return { response, text, request };
  } catch (error) {
    if (userSignal?.aborted) throw abortError(plan, userSignal);
    const elapsed = performance.now() - startedAt;
    // ky throws one `TimeoutError` for both limits; the clock says which one ran out (ky's
    // attempt timer is min(timeout, time left), so it fires at the deadline when that is nearer).
    if (elapsed >= plan.deadlineMs - 1 && (isTimeoutError(error) || isDomTimeout(error))) {
      throw new KycTimeoutError(
        `KYC API call did not finish within deadlineMs=${plan.deadlineMs}, retries included (${request.method} ${request.url})`,
        { kind: 'deadline', timeoutMs: plan.deadlineMs, request, cause: lastFailure?.error },
      );
    }
    // ky rethrows the very error `shouldRetry` declined, already described there.
    throw (error === lastFailed && lastFailure ? lastFailure : describe(error)).error;
  }
}

function announce(plan: RequestPlan, event: Omit<KycRetryEvent, 'method' | 'url'>): void {
  const full: KycRetryEvent = { method: plan.method, url: plan.url, ...event };
  const status = event.error instanceof KycApiError ? ` ${event.error.status}` : '';
  try {
    plan.onRetry?.(full);
  } catch {
    // A tracing hook must not change the outcome of the call.
  }
  try {
    plan.logger?.warn(
      `kyc-client: ${plan.method} ${plan.url} failed (${event.error.name}${status}); attempt ${event.attempt + 1} of ${event.maxAttempts} in ${event.delayMs} ms`,
      { ...full, error: event.error.toJSON() },
    );
  } catch {
    // Same for a logger.
  }
}

function abortError(plan: RequestPlan, signal: AbortSignal): KycAbortError {
  return new KycAbortError(`the call was aborted by its signal (${plan.method} ${plan.url})`, {
    request: plan.request,
    cause: signal.reason,
  });
}

function isDomTimeout(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'TimeoutError';
}

/** Settles like `promise`, or rejects with the signal's reason as soon as it aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
