import type { Attributes, Context, Link } from '@opentelemetry/api';
import type { RequestFinished, RequestFinishedListener } from '../receiver/request-finished.js';
import { loadOpenTelemetryApi, type OtelApi } from './load-api.js';
import { parseTraceparent } from './parse-traceparent.js';
import type { ReceiverTelemetryOptions } from './telemetry-options.js';

const SCOPE = '@kyc/webhook-receiver';
/** Up to the 25 s handler timeout and the sender's 30 s deadline. */
const HANDLER_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 30];
const TRACEPARENT = 'traceparent';
const TRACESTATE = 'tracestate';

interface Instruments {
  readonly api: OtelApi;
  record(finished: RequestFinished): void;
}

function instrument(api: OtelApi, options: ReceiverTelemetryOptions, trustTraceContext: boolean): Instruments {
  const tracer = (options.tracerProvider ?? api.trace.getTracerProvider()).getTracer(SCOPE);
  const meter = (options.meterProvider ?? api.metrics.getMeterProvider()).getMeter(SCOPE);
  const received = meter.createCounter('kyc.webhook.received', {
    description: 'Webhook requests answered, by outcome',
    unit: '{request}',
  });
  const handlerDuration = meter.createHistogram('kyc.webhook.handler.duration', {
    description: 'How long onEvent ran before the answer (until the timeout for handler_timeout)',
    unit: 's',
    advice: { explicitBucketBoundaries: HANDLER_BUCKETS },
  });
  // Inbox mode: one count per inbox result (six values), e.g. duplicates absorbed, stale results skipped.
  const inboxResults = meter.createCounter('kyc.webhook.inbox', {
    description: 'Inbox deliveries, by result',
    unit: '{request}',
  });
  const byInbox = new Map<string, Attributes>();
  const getter = {
    keys: () => [TRACEPARENT, TRACESTATE],
    get: (carrier: RequestFinished, key: string) => carrier.header(key),
  };
  // One attributes object per outcome (a vocabulary of ten), not one per request and instrument.
  const byOutcome = new Map<string, Attributes>();
  const attributesOf = (outcome: string): Attributes => {
    let attributes = byOutcome.get(outcome);
    if (attributes === undefined) {
      attributes = Object.freeze({ outcome });
      byOutcome.set(outcome, attributes);
    }
    return attributes;
  };

  return {
    api,
    record(finished) {
      const { answer } = finished;
      const attributes = attributesOf(answer.outcome);
      received.add(1, attributes);
      if (finished.handlerMs !== undefined) handlerDuration.record(finished.handlerMs / 1000, attributes);
      if (finished.inbox !== undefined) {
        let result = byInbox.get(finished.inbox);
        if (result === undefined) {
          result = Object.freeze({ result: finished.inbox });
          byInbox.set(finished.inbox, result);
        }
        inboxResults.add(1, result);
      }
      // The span is written when the answer is known (the request-finished seam): its start is
      // set back by the measured duration.
      const active = api.context.active();
      let parent: Context = active;
      const links: Link[] = [];
      const traceparent = finished.header(TRACEPARENT);
      if (traceparent !== undefined) {
        const extracted = api.trace.getSpanContext(api.propagation.extract(api.ROOT_CONTEXT, finished, getter));
        // Without a registered propagator nothing is extracted: read the W3C header ourselves.
        const incoming =
          extracted !== undefined && api.trace.isSpanContextValid(extracted)
            ? extracted
            : parseTraceparent(api, traceparent, finished.header(TRACESTATE));
        if (incoming !== undefined) {
          // Trusted: continue the sender's trace. Untrusted: only point at it; a link grants nothing.
          if (trustTraceContext) parent = api.trace.setSpanContext(active, incoming);
          else links.push({ context: incoming, attributes: { 'kyc.trace.trusted': false } });
        }
      }
      const end = Date.now();
      const span = tracer.startSpan(
        'kyc.webhook.receive',
        {
          kind: api.SpanKind.SERVER,
          startTime: end - finished.durationMs,
          links,
        },
        parent,
      );
      // Without an SDK the span is a no-op: its attributes are not even built.
      if (span.isRecording()) {
        span.setAttributes(spanAttributes(finished));
        if (answer.status >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR });
      }
      span.end(end);
    },
  };
}

/** Span attributes: the outcome and ids, never a header value, a key or the body. */
function spanAttributes(finished: RequestFinished): Attributes {
  const { answer, event } = finished;
  const attributes: Attributes = {
    'kyc.webhook.outcome': answer.outcome,
    'http.response.status_code': answer.status,
  };
  if (answer.code !== undefined) attributes['error.type'] = answer.code;
  if (finished.webhookId !== undefined) attributes['kyc.webhook.event_id'] = finished.webhookId;
  if (event !== undefined) {
    attributes['kyc.session.id'] = event.sessionId;
    attributes['kyc.webhook.idempotency_key'] = event.idempotencyKey;
  }
  if (finished.handlerMs !== undefined) attributes['kyc.webhook.handler.duration'] = finished.handlerMs / 1000;
  if (finished.inbox !== undefined) attributes['kyc.webhook.inbox.result'] = finished.inbox;
  return attributes;
}

/**
 * The receiver's spans and metrics as a request-finished listener, or `undefined` when
 * telemetry is off. `@opentelemetry/api` is loaded once, when the first request ends (not when
 * the receiver is made: a module's top level must do no I/O on workerd); when it is absent the
 * listener takes itself out of `listeners`, so a receiver without the package pays nothing per
 * request after the first.
 */
export function telemetryListener(
  options: ReceiverTelemetryOptions | false | undefined,
  trustTraceContext: boolean,
  listeners: RequestFinishedListener[],
): void {
  if (options === false) return;
  const settings = options ?? {};
  let instruments: Instruments | undefined;
  let ready: Promise<Instruments | undefined> | undefined;
  const load = () =>
    (settings.api === undefined ? loadOpenTelemetryApi() : Promise.resolve(settings.api)).then((api) => {
      if (api === undefined) {
        const index = listeners.indexOf(listener);
        if (index >= 0) listeners.splice(index, 1);
        return undefined;
      }
      instruments = instrument(api, settings, trustTraceContext);
      return instruments;
    });
  const listener: RequestFinishedListener = (finished) => {
    if (instruments !== undefined) {
      instruments.record(finished);
      return undefined;
    }
    ready ??= load();
    return ready.then((loaded) => {
      loaded?.record(finished);
      return undefined;
    });
  };
  listeners.push(listener);
}
