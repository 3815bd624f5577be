import type { KyInstance } from 'ky';
import {
  KycAbortError,
  KycApiError,
  KycConnectionError,
  type KycError,
  type KycRequestInfo,
  KycTimeoutError,
} from './errors.js';
import type { Exchange, FailedResponse } from './read-response.js';
import type { Scrubber } from './redact.js';
import { backoffDelayMs } from './retry-policy.js';
import { createTimeoutScope } from './timeout-scope.js';

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
}

type Outcome = { readonly ok: true; readonly exchange: Exchange } | ({ readonly ok: false } & FailedResponse);

/**
 * Sends a request until it gets a 2xx or a final error: retryable failures (network, attempt
 * timeout, 408/429/5xx) wait `Retry-After` or a jittered backoff, as long as retries remain and
 * the wait ends before the deadline. Returns the 2xx exchange; throws only `KycError`s.
 *
 * The deadline needs no timer of its own: each attempt's timer runs for
 * `min(timeoutMs, time left)`, and a wait is only started when it ends before the deadline
 * (its scope still stops a `sleep` that overruns). One timer per attempt keeps the common
 * single-attempt call cheap.
 */
export async function runWithRetries(plan: RequestPlan, readFailure: (exchange: Exchange) => FailedResponse) {
  const { signal: userSignal } = plan;
  if (userSignal?.aborted) throw abortError(plan, userSignal);
  const deadlineAt = Date.now() + plan.deadlineMs;
  const maxAttempts = plan.maxRetries + 1;
  for (let attempt = 1; ; attempt += 1) {
    const outcome = await attemptOnce(plan, deadlineAt);
    if (outcome.ok && outcome.exchange.response.ok) return outcome.exchange;
    const failure = outcome.ok ? readFailure(outcome.exchange) : outcome;
    if (!failure.retryable || attempt >= maxAttempts) throw failure.error;
    const delayMs = failure.retryAfterMs ?? backoffDelayMs(attempt - 1, plan.random);
    // A wait that outlasts the deadline only delays the same answer: give it now.
    const left = deadlineAt - Date.now();
    if (delayMs >= left) throw failure.error;
    announce(plan, { attempt, maxAttempts, delayMs, retryAfterMs: failure.retryAfterMs, error: failure.error });
    const wait = createTimeoutScope(userSignal, left);
    try {
      await abortable((plan.sleep ?? sleep)(delayMs, wait.signal), wait.signal);
    } catch {
      // An aborted wait is judged by the signals just below; nothing else can be learnt here.
    } finally {
      wait.dispose();
    }
    if (userSignal?.aborted) throw abortError(plan, userSignal);
    if (wait.expired()) throw deadlineError(plan, failure.error);
  }
}

async function attemptOnce(plan: RequestPlan, deadlineAt: number): Promise<Outcome> {
  const left = deadlineAt - Date.now();
  if (left <= 0) throw deadlineError(plan, undefined);
  const deadlineFirst = left <= plan.timeoutMs;
  const scope = createTimeoutScope(plan.signal, deadlineFirst ? left : plan.timeoutMs);
  const { signal } = scope;
  const { fetch: customFetch } = plan;
  try {
    // Racing the signal as well as passing it: a fetch (or mock) that ignores the signal, or
    // does not abort a body stream, must not turn a timeout into a hang.
    const response = await abortable(
      plan.ky(plan.url, {
        method: plan.method,
        headers: plan.headers,
        ...(plan.body !== undefined && { body: plan.body }),
        // The signal goes to fetch itself rather than to ky: given a signal, ky links it to its
        // own controller with AbortSignal.any on every call, which measurably costs per call.
        // `globalThis.fetch` is looked up per call (and called as a method, as browsers require).
        fetch: (input, init) =>
          customFetch ? customFetch(input, { ...init, signal }) : globalThis.fetch(input, { ...init, signal }),
      }),
      signal,
    );
    // The body is read under the same signal, so timeoutMs covers a slow body too.
    const text = await abortable(response.text(), signal);
    return { ok: true, exchange: { response, text, request: plan.request } };
  } catch (cause) {
    if (plan.signal?.aborted) throw abortError(plan, plan.signal);
    if (scope.expired() && deadlineFirst) throw deadlineError(plan, cause);
    const { request } = plan;
    if (scope.expired()) {
      const error = new KycTimeoutError(
        `KYC API gave no complete response within timeoutMs=${plan.timeoutMs} (${request.method} ${request.url})`,
        { kind: 'attempt', timeoutMs: plan.timeoutMs, request },
      );
      return { ok: false, error, retryable: true, retryAfterMs: undefined };
    }
    const error = new KycConnectionError(
      `KYC API request failed on the network (${request.method} ${request.url}): ${plan.scrub(describeCause(cause))}`,
      { request, cause },
    );
    return { ok: false, error, retryable: true, retryAfterMs: undefined };
  } finally {
    scope.dispose();
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

function deadlineError(plan: RequestPlan, cause: unknown): KycTimeoutError {
  return new KycTimeoutError(
    `KYC API call did not finish within deadlineMs=${plan.deadlineMs}, retries included (${plan.method} ${plan.url})`,
    { kind: 'deadline', timeoutMs: plan.deadlineMs, request: plan.request, cause },
  );
}

function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const inner = cause.cause;
  const code =
    typeof inner === 'object' && inner !== null && 'code' in inner && typeof inner.code === 'string' ? inner.code : '';
  return code === '' ? cause.message : `${cause.message} (${code})`;
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

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
