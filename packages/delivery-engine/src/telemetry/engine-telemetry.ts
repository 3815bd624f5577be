import type { Link, MeterProvider, Span, TracerProvider } from '@opentelemetry/api';
import type { LanesSnapshot } from '../engine/attempt-slots.js';
import type { AttemptTransition, DeliveryClaim, QueueStats, StoreHealth } from '../store/store.js';
import { attemptStartAttributes, errorType, metricOutcome, urlAttributes } from './attempt-attributes.js';
import { observeLanes } from './lane-gauges.js';
import type { OtelApi } from './load-api.js';
import { formatTraceparent, parseTraceparent } from './traceparent.js';

/** Options of the engine's OpenTelemetry instrumentation. */
export interface DeliveryEngineTelemetryOptions {
  /** Where spans go (default: the global provider registered with `@opentelemetry/api`). */
  readonly tracerProvider?: TracerProvider;
  /** Where metrics go (default: the global provider registered with `@opentelemetry/api`). */
  readonly meterProvider?: MeterProvider;
}

/** An enqueue in progress: the `traceparent` to store with the event, and how to end the span. */
export interface EnqueueSpan {
  readonly traceParent: string | undefined;
  identify(ids: { readonly sessionId?: string | undefined; readonly companyId?: string | undefined }): void;
  end(error?: unknown): void;
}

/** What an attempt span needs of a result (`outcome` may also be `worker_lost`). */
export interface AttemptSummary {
  readonly outcome: string;
  readonly status?: number | undefined;
  readonly latencyMs: number;
  readonly dialedAddress?: string | undefined;
  readonly errorMessage?: string | undefined;
}

/** What an attempt span needs of a result (`outcome` may also be `worker_lost`). */
export interface AttemptSummary {
  readonly outcome: string;
  readonly status?: number | undefined;
  readonly latencyMs: number;
  readonly dialedAddress?: string | undefined;
  readonly errorMessage?: string | undefined;
}

/** One attempt's span and metrics. */
export interface AttemptSpan {
  /** The attempt's own `traceparent`, for the outgoing header when propagation is on. */
  readonly traceParent: string | undefined;
  end(
    result: AttemptSummary,
    next?: {
      readonly transition: AttemptTransition;
      readonly now: number;
    },
  ): void;
  /** Ends the span of an attempt given back unrecorded (the engine stopped mid-exchange); no metric counts it. */
  abandon(): void;
}

/** What the engine calls; {@link NOOP_TELEMETRY} when `@opentelemetry/api` is absent or telemetry is off. */
export interface EngineTelemetry {
  startEnqueue(eventId: string): EnqueueSpan;
  startAttempt(claim: DeliveryClaim): AttemptSpan;
  /**
   * Reports queue depth and age from `stats`, and the store's own health from `health` (when the
   * store keeps one), on every collection; returns the unregister function.
   */
  observeQueue(
    stats: () => Promise<QueueStats>,
    now: () => number,
    onError: (error: unknown) => void,
    health?: () => StoreHealth | undefined,
  ): () => void;
  /** Reports the lanes from `snapshot` on every collection; returns the unregister function. */
  observeLanes(snapshot: () => LanesSnapshot): () => void;
}

const NOOP_ENQUEUE: EnqueueSpan = { traceParent: undefined, identify() {}, end() {} };
const NOOP_ATTEMPT: AttemptSpan = { traceParent: undefined, end() {}, abandon() {} };
export const NOOP_TELEMETRY: EngineTelemetry = {
  startEnqueue: () => NOOP_ENQUEUE,
  startAttempt: () => NOOP_ATTEMPT,
  observeQueue: () => () => {},
  observeLanes: () => () => {},
};

const SCOPE = '@kyc/delivery-engine';
/** Up to the 30 s deadline. */
const ATTEMPT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30];
/** From a first-try delivery to the last retry 21 minutes later, and beyond. */
const LAG_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600];
/** Status descriptions are free text from the transport: keep them short. */
const MAX_DESCRIPTION = 256;

/**
 * The engine's spans and metrics over `@opentelemetry/api`. Without an SDK every call lands
 * on the API's no-op tracer and meter; attributes are only computed for recording spans.
 */
export function createEngineTelemetry(api: OtelApi, options: DeliveryEngineTelemetryOptions = {}): EngineTelemetry {
  const tracer = (options.tracerProvider ?? api.trace.getTracerProvider()).getTracer(SCOPE);
  const meter = (options.meterProvider ?? api.metrics.getMeterProvider()).getMeter(SCOPE);
  const attempts = meter.createCounter('kyc.webhook.attempts', {
    description: 'Delivery attempts, by outcome class',
    unit: '{attempt}',
  });
  const deliveries = meter.createCounter('kyc.webhook.deliveries', {
    description: 'Deliveries that reached a final state: delivered, or failed after the last retry',
    unit: '{delivery}',
  });
  const attemptDuration = meter.createHistogram('kyc.webhook.attempt.duration', {
    description: 'Duration of one delivery attempt, DNS to the end of the response',
    unit: 's',
    advice: { explicitBucketBoundaries: ATTEMPT_BUCKETS },
  });
  const lag = meter.createHistogram('kyc.webhook.delivery.lag', {
    description: 'Time from enqueue to the 200 answer (first round of attempts only)',
    unit: 's',
    advice: { explicitBucketBoundaries: LAG_BUCKETS },
  });
  const depth = meter.createObservableGauge('kyc.webhook.queue.depth', {
    description: 'Pending deliveries by state: due now, waiting for a retry, in flight',
    unit: '{delivery}',
  });
  const oldestDue = meter.createObservableGauge('kyc.webhook.oldest_due.age', {
    description: 'How long the oldest due delivery has been waiting (0 when none is due)',
    unit: 's',
  });
  const writable = meter.createObservableGauge('kyc.webhook.store.writable', {
    description: 'Whether the delivery store can write (1) or not (0): why, in its state attribute',
    unit: '1',
  });
  const held = meter.createObservableGauge('kyc.webhook.store.held_results', {
    description: 'Finished attempts whose results wait for the store to write again',
    unit: '{result}',
  });

  return {
    startEnqueue(eventId) {
      const span = tracer.startSpan('kyc.webhook.enqueue', {
        kind: api.SpanKind.PRODUCER,
        attributes: { 'kyc.webhook.event_id': eventId },
      });
      return {
        traceParent: formatTraceparent(span.spanContext()),
        identify({ sessionId, companyId }) {
          if (!span.isRecording()) return;
          if (sessionId !== undefined) span.setAttribute('kyc.session.id', sessionId);
          if (companyId !== undefined) span.setAttribute('kyc.company.id', companyId);
        },
        end(error) {
          if (error !== undefined) failSpan(api, span, errorCode(error), undefined);
          span.end();
        },
      };
    },

    startAttempt(claim) {
      const stored = parseTraceparent(claim.traceParent);
      const parent = stored === undefined ? api.ROOT_CONTEXT : api.trace.setSpanContext(api.ROOT_CONTEXT, stored);
      const links: Link[] = stored === undefined ? [] : [{ context: stored }];
      const roundAttempt = claim.roundAttempts + 1;
      const span = tracer.startSpan(
        'POST',
        {
          kind: api.SpanKind.CLIENT,
          links,
          attributes: attemptStartAttributes({
            eventId: claim.id,
            attempt: claim.attempts + 1,
            roundAttempt,
            sessionId: claim.sessionId,
            companyId: claim.companyId,
          }),
        },
        parent,
      );
      // The URL's attributes cost more than the rest of the span's work with no SDK (two parses
      // and a copy, ~2 µs per attempt): built only for a recorded span. A sampler therefore sees
      // the kyc.* ids and the method at creation, not the URL. A stored URL that no longer
      // parses fails at send time as `invalid_url`; its span has no URL.
      if (span.isRecording()) {
        const url = URL.parse(claim.url);
        if (url !== null) span.setAttributes(urlAttributes(url));
      }
      return {
        traceParent: formatTraceparent(span.spanContext()),
        end(result, next) {
          const outcome = metricOutcome(result.outcome);
          attempts.add(1, { outcome });
          attemptDuration.record(result.latencyMs / 1000, { outcome });
          const state = next?.transition.state;
          if (state === 'delivered' || state === 'failed') deliveries.add(1, { outcome: state });
          if (state === 'delivered' && next !== undefined && claim.round === 1 && claim.createdAt !== undefined) {
            lag.record(Math.max(0, next.now - claim.createdAt) / 1000);
          }
          if (span.isRecording()) {
            span.setAttribute('kyc.webhook.outcome', result.outcome);
            if (result.status !== undefined) span.setAttribute('http.response.status_code', result.status);
            if (result.dialedAddress !== undefined) span.setAttribute('network.peer.address', result.dialedAddress);
            if (state !== undefined) span.setAttribute('kyc.webhook.state', state);
            const type = errorType(result.outcome, result.status);
            if (type !== undefined) failSpan(api, span, type, result.errorMessage);
          }
          span.end();
        },
        abandon() {
          failSpan(
            api,
            span,
            'engine_stopped',
            'the engine stopped before the exchange ended; the delivery is due again',
          );
          span.end();
        },
      };
    },

    observeLanes: (snapshot) => observeLanes(meter, snapshot),

    observeQueue(stats, now, onError, health) {
      const gauges = [depth, oldestDue, writable, held];
      const callback = async (observer: Parameters<Parameters<typeof meter.addBatchObservableCallback>[0]>[0]) => {
        // The store's own account first: it is what an outage needs, and costs no store call.
        const storeHealth = health?.();
        if (storeHealth !== undefined) {
          const state = storeHealth.writable ? 'ok' : storeHealth.fenced ? 'fenced' : 'outage';
          observer.observe(writable, storeHealth.writable ? 1 : 0, { state });
          observer.observe(held, storeHealth.heldResults);
        }
        let current: QueueStats;
        try {
          current = await stats();
        } catch (error) {
          // A store outage must not fail the whole collection: the gauges are simply absent.
          onError(error);
          return;
        }
        observer.observe(depth, current.due, { state: 'due' });
        observer.observe(depth, current.waitingRetry, { state: 'waiting_retry' });
        observer.observe(depth, current.inFlight, { state: 'in_flight' });
        const age = current.oldestDueAt === undefined ? 0 : Math.max(0, now() - current.oldestDueAt) / 1000;
        observer.observe(oldestDue, age);
      };
      meter.addBatchObservableCallback(callback, gauges);
      return () => meter.removeBatchObservableCallback(callback, gauges);
    },
  };
}

function failSpan(api: OtelApi, span: Span, type: string, message: string | undefined): void {
  span.setAttribute('error.type', type);
  span.setStatus({
    code: api.SpanStatusCode.ERROR,
    ...(message !== undefined && { message: message.slice(0, MAX_DESCRIPTION) }),
  });
}

/** A bounded `error.type` for a failed enqueue: the engine's error code, else the error's class. */
function errorCode(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    return error.code;
  }
  return error instanceof Error ? error.name : 'unknown';
}
