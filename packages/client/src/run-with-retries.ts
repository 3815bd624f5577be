import { isTimeoutError, type KyInstance, type Options } from 'ky';
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
  /** Built once per client with {@link kyDefaults}. */
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
 * The ky options every call of one client shares: one attempt per ky call (no ky retries, so
 * ky neither clones each request for a resend nor runs a deadline timer beside the attempt's),
 * HTTP errors returned, not thrown, and redirects not followed, so the Basic credentials never
 * travel to wherever a `Location` points.
 *
 * @example
 * const instance = ky.create(kyDefaults());
 */
export function kyDefaults(): Options {
  return { retry: 0, throwHttpErrors: false, redirect: 'manual' };
}

/**
 * Sends a request until it gets a 2xx or a final error, and returns the 2xx exchange; throws
 * only `KycError`s.
 *
 * ky sends each attempt and bounds it (`timeout`, at most the time left before the deadline),
 * and links the caller's signal to it. The attempts are a loop here, not ky's retries, because
 * nearly every rule differs from ky's: the service's `Retry-After` is honoured only up to a cap
 * and a longer one fails at once (ky clamps and waits); a wait that would outlast the deadline
 * fails at once with the last answer (ky sleeps out the rest and throws a bare timeout);
 * `onRetry` and the logger announce the wait's length before it starts; a `sleep` can be
 * injected; and the errors are typed and secret-free (ky's carry the `Request`, credentials
 * included). ky's retries also cost every call, failed or not: a clone of the request per
 * attempt and a deadline timer (1.13× bare ky per call with the zod parse, against 1.0×).
 *
 * The body is read inside the fetch ky times, so `timeoutMs` covers a stalled body and such an
 * attempt is retried (ky's `timeout` stops at the headers).
 */
export async function runWithRetries(
  plan: RequestPlan,
  readFailure: (exchange: Exchange) => FailedResponse,
): Promise<Exchange> {
  const { signal: userSignal, request, deadlineMs } = plan;
  if (userSignal?.aborted) throw abortError(plan, userSignal);
  const startedAt = performance.now();
  const left = () => deadlineMs - (performance.now() - startedAt);
  // The latest attempt's body; one attempt is in flight at a time.
  let text = '';
  const customFetch = plan.fetch;
  let attempt = 0;
  // Not async: without a span it hands ky the attempt's own promise, one promise layer fewer per call.
  const fetchWhole = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const span = input instanceof Request ? plan.startAttempt?.(input, attempt) : undefined;
    const sent = fetchAttempt(input, init);
    if (span === undefined) return sent;
    return traceAttempt(span, (input as Request).signal, sent, () => userSignal?.aborted === true);
  };
  const fetchAttempt = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    // `globalThis.fetch` is looked up per call (and called as a method, as browsers require).
    if (customFetch === undefined) {
      const response = await globalThis.fetch(input, init);
      text = await response.text();
      return response;
    }
    // A caller's fetch (or mock) may ignore the signal, or not abort a body stream: racing the
    // signal ky put on the request keeps the caller's abort prompt. ky's timer races on its own.
    const signal = (input as Request).signal;
    const response = await abortable(customFetch(input, init), signal);
    text = await abortable(response.text(), signal);
    return response;
  };
  const options: Options = {
    method: plan.method,
    headers: plan.headers,
    ...(plan.body !== undefined && { body: plan.body }),
    fetch: fetchWhole,
    // Passed only when given: ky links a signal to its own controller on every call.
    ...(userSignal && { signal: userSignal }),
  };

  let lastFailure: FailedResponse | undefined;
  const deadlineError = () =>
    new KycTimeoutError(
      `KYC API call did not finish within deadlineMs=${deadlineMs}, retries included (${request.method} ${request.url})`,
      { kind: 'deadline', timeoutMs: deadlineMs, request, cause: lastFailure?.error },
    );
  for (; ; attempt += 1) {
    // The attempt's timer is min(timeoutMs, time left), so it fires at the deadline when that is nearer.
    const timeout = Math.max(1, Math.ceil(Math.min(plan.timeoutMs, left())));
    let failure: FailedResponse;
    try {
      options.timeout = timeout;
      const response = await plan.ky(plan.url, options);
      if (response.ok) return { response, text, request };
      failure = readFailure({ response, text, request });
    } catch (error) {
      if (userSignal?.aborted) throw abortError(plan, userSignal);
      // ky throws one `TimeoutError` whichever limit set the timer; the clock says which ran out.
      if (left() <= 1 && (isTimeoutError(error) || isDomTimeout(error))) throw deadlineError();
      failure = describe(plan, error);
    }
    lastFailure = failure;
    if (!failure.retryable || attempt >= plan.maxRetries) throw failure.error;
    const delayMs = failure.retryAfterMs ?? backoffDelayMs(attempt, plan.random);
    const remaining = left();
    // A wait that outlasts the deadline only delays the same answer: give it now. When the
    // deadline has already passed (an answer read late on a busy event loop), retries were left
    // and the deadline ended them: that is the deadline's error, whichever timer would have said so.
    if (delayMs >= remaining) throw remaining <= 0 ? deadlineError() : failure.error;
    announce(plan, {
      attempt: attempt + 1,
      maxAttempts: plan.maxRetries + 1,
      delayMs,
      retryAfterMs: failure.retryAfterMs,
      error: failure.error,
    });
    // The wait ends early when the caller aborts or the deadline passes (an injected sleep may never end).
    const timer = AbortSignal.timeout(Math.max(1, Math.ceil(remaining)));
    const signal = userSignal ? AbortSignal.any([userSignal, timer]) : timer;
    try {
      await abortable((plan.sleep ?? timerSleep)(delayMs, signal), signal);
    } catch {
      if (userSignal?.aborted) throw abortError(plan, userSignal);
      throw deadlineError();
    }
  }
}

/** A failure that is not an HTTP answer: the attempt's timeout, or the network. */
function describe(plan: RequestPlan, error: unknown): FailedResponse {
  const { request } = plan;
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
}

/** The wait when no `sleep` is injected: a timer, cleared when the signal aborts. */
const timerSleep: KycSleep = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
  });

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
