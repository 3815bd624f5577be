import { HEADERS } from '@kyc/contracts/service-api';
import type { MeterProvider, Span, TracerProvider } from '@opentelemetry/api';
import { loadOpenTelemetryApi, type OtelApi } from './load-api.js';

/** Options of the client's OpenTelemetry instrumentation. */
export interface KycClientTelemetryOptions {
  /** The `@opentelemetry/api` module, for runtimes that cannot load it by name (Workers). */
  readonly api?: OtelApi;
  /** Where spans go (default: the global provider). */
  readonly tracerProvider?: TracerProvider;
  /** Unused today; accepted so one `{ tracerProvider, meterProvider }` object fits every package. */
  readonly meterProvider?: MeterProvider;
}

/** One attempt's HTTP CLIENT span. */
export interface AttemptSpan {
  /** The answer arrived (any status), body read. */
  end(response: Response): void;
  /** No answer: a timeout, an abort or a network failure, as {@link attemptErrorType} names it. */
  fail(errorType: string): void;
}

/** Starts a span per attempt; `undefined` until the API has loaded, when it is absent, or when the span is not recorded. */
export type StartAttempt = (request: Request, resendCount: number) => AttemptSpan | undefined;

const SCOPE = '@kyc/client';

/**
 * `error.type` of an attempt that got no answer: `timeout` when ky's timer aborted it,
 * `aborted` when the caller did, else the network cause's code (`ECONNREFUSED`…) or the
 * error's class.
 */
export function attemptErrorType(error: unknown, callerAborted: boolean): string {
  const name = error instanceof Error ? error.name : '';
  if (name === 'AbortError' || name === 'TimeoutError') return callerAborted ? 'aborted' : 'timeout';
  // Node's undici puts the socket error's code on the cause, Bun on the error itself.
  const code =
    error instanceof Error
      ? ((error.cause as { code?: unknown } | undefined)?.code ?? (error as { code?: unknown }).code)
      : undefined;
  if (typeof code === 'string' && /^[A-Z_]{2,40}$/.test(code)) return code;
  return name === '' || name === 'Error' ? '_OTHER' : name;
}

function startWith(api: OtelApi, provider: TracerProvider | undefined): StartAttempt {
  const tracer = (provider ?? api.trace.getTracerProvider()).getTracer(SCOPE);
  const setter = { set: (carrier: Headers, key: string, value: string) => carrier.set(key, value) };
  return (request, resendCount) => {
    const span: Span = tracer.startSpan(request.method, {
      kind: api.SpanKind.CLIENT,
      attributes: {
        'http.request.method': request.method,
        ...(resendCount > 0 && { 'http.request.resend_count': resendCount }),
      },
    });
    // The service is the caller's own counterpart: its spans continue this one, also when this
    // one is not recorded, so that a sampled-out trace stays sampled out downstream.
    api.propagation.inject(api.trace.setSpan(api.context.active(), span), request.headers, setter);
    // Not recorded (no SDK registered, or sampled out): its attributes and end would be dropped,
    // so the attempt is not followed at all (no abort listener, no header lookups).
    if (!span.isRecording()) {
      span.end();
      return undefined;
    }
    // The URL attributes cost a URL parse and a copy: built only for a span that is recorded (as the
    // engine's attempt spans do), so a sampler sees the method and the resend count, not the URL.
    const url = new URL(request.url);
    span.setAttributes({
      'server.address': url.hostname,
      'server.port': url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port),
      // The service's URLs carry a session id at most; credentials travel in a header, never recorded.
      'url.full': `${url.origin}${url.pathname}`,
    });
    return {
      end(response) {
        span.setAttribute('http.response.status_code', response.status);
        const requestId = response.headers.get(HEADERS.requestId);
        if (requestId !== null) span.setAttribute('kyc.request.id', requestId.slice(0, 128));
        if (response.status >= 400) {
          span.setAttribute('error.type', String(response.status));
          span.setStatus({ code: api.SpanStatusCode.ERROR });
        }
        span.end();
      },
      fail(errorType) {
        span.setAttribute('error.type', errorType);
        span.setStatus({ code: api.SpanStatusCode.ERROR });
        span.end();
      },
    };
  };
}

/**
 * The client's tracing: one HTTP CLIENT span per attempt (`GET` / `POST`, the semantic
 * conventions' attributes, `http.request.resend_count` on retries, the service's request id as
 * `kyc.request.id`), with `traceparent` injected by the registered propagator. `false` turns it
 * off; without `@opentelemetry/api` installed it stays off at no cost.
 */
export function clientTelemetry(options: KycClientTelemetryOptions | false | undefined): {
  /** Looks for the API the first time it is called (not when the client is made: a module's top
   * level must do no I/O on workerd); `await` it before a call. */
  readonly ready: () => Promise<void>;
  start: StartAttempt;
} {
  let start: StartAttempt = () => undefined;
  if (options === false) return { ready: () => Promise.resolve(), start: (r, n) => start(r, n) };
  let loaded: Promise<void> | undefined;
  const ready = () => {
    loaded ??= (options?.api === undefined ? loadOpenTelemetryApi() : Promise.resolve(options.api)).then((api) => {
      if (api !== undefined) start = startWith(api, options?.tracerProvider);
    });
    return loaded;
  };
  return { ready, start: (request, resendCount) => start(request, resendCount) };
}
