import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { HEADERS, sampleStatusWebhook } from '@kyc/contracts';
import { context, propagation, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { type DataPoint, type Histogram, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requestInit } from '../../test/support/fetch-send.js';
import { AUTH_KEY, authorized, deferred } from '../../test/support/receiver-table.js';
import {
  createWebhookReceiver,
  type IdempotencyStore,
  memoryIdempotencyStore,
  type WebhookHandler,
  type WebhookReceiverOptions,
} from '../index.js';

class OnDemandReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

const spans = new InMemorySpanExporter();
const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] });
const reader = new OnDemandReader();
const meterProvider = new MeterProvider({ readers: [reader] });
const INCOMING = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
});
afterEach(() => spans.reset());
afterAll(async () => {
  await tracerProvider.shutdown();
  await meterProvider.shutdown();
  propagation.disable();
  context.disable();
});

const send = (receiver: ReturnType<typeof createWebhookReceiver>, init: RequestInit) =>
  receiver.receive({
    method: init.method ?? 'GET',
    header: (name) => new Headers(init.headers).get(name),
    readBody: async () => new TextEncoder().encode(typeof init.body === 'string' ? init.body : ''),
  });

const receiverWith = (onEvent: WebhookHandler = () => undefined, extra: Partial<WebhookReceiverOptions> = {}) =>
  createWebhookReceiver({
    authKeys: AUTH_KEY,
    onEvent,
    logger: {},
    telemetry: { tracerProvider, meterProvider },
    ...extra,
  } as WebhookReceiverOptions);

const lastSpan = () => spans.getFinishedSpans().at(-1);

async function points(name: string): Promise<DataPoint<number | Histogram>[]> {
  const { resourceMetrics } = await reader.collect();
  const metric = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
  return (metric?.dataPoints ?? []) as DataPoint<number | Histogram>[];
}
async function count(name: string, outcome: string): Promise<number> {
  const point = (await points(name)).find((p) => p.attributes.outcome === outcome);
  if (point === undefined) return 0;
  return typeof point.value === 'number' ? point.value : point.value.count;
}

describe('receiver spans and metrics with a registered SDK', () => {
  it.each<[string, () => Promise<unknown>, string, number, string | undefined]>([
    ['a GET', () => send(receiverWith(), { method: 'GET' }), 'invalid', 405, 'method_not_allowed'],
    [
      'a wrong key',
      () =>
        send(
          receiverWith(),
          requestInit({
            ...authorized(sampleStatusWebhook),
            headers: { authorization: 'Bearer not-the-key-but-long' },
          }),
        ),
      'unauthorized',
      401,
      'invalid_auth',
    ],
    [
      'a body that is not JSON',
      () => send(receiverWith(), requestInit(authorized('{"sessionId": '))),
      'invalid',
      400,
      'invalid_body',
    ],
    [
      'a declared length over the limit',
      () =>
        send(
          receiverWith(),
          requestInit(authorized(sampleStatusWebhook, { 'content-length': String(2 * 1024 * 1024) })),
        ),
      'too_large',
      413,
      'body_too_large',
    ],
    [
      'a handler that throws',
      () =>
        send(
          receiverWith(() => {
            throw new Error(`boom ${AUTH_KEY}`);
          }),
          requestInit(authorized(sampleStatusWebhook)),
        ),
      'handler_error',
      500,
      'handler_failed',
    ],
    [
      'a handler that outlives handlerTimeoutMs',
      () =>
        send(
          receiverWith(() => new Promise(() => {}), { handlerTimeoutMs: 20 }),
          requestInit(authorized(sampleStatusWebhook)),
        ),
      'handler_timeout',
      503,
      'handler_timeout',
    ],
    [
      'a store that is down',
      () => {
        const down: IdempotencyStore = {
          ...memoryIdempotencyStore(),
          claim: () => Promise.reject(new Error('refused')),
        };
        return send(receiverWith(undefined, { idempotencyStore: down }), requestInit(authorized(sampleStatusWebhook)));
      },
      'store_unavailable',
      503,
      'store_unavailable',
    ],
  ])('%s → a kyc.webhook.receive span and a count for %s', async (_name, act, outcome, status, code) => {
    const before = await count('kyc.webhook.received', outcome);
    await act();
    const span = lastSpan();
    expect(span?.name).toBe('kyc.webhook.receive');
    expect(span?.kind).toBe(SpanKind.SERVER);
    expect(span?.attributes).toMatchObject({
      'kyc.webhook.outcome': outcome,
      'http.response.status_code': status,
      'error.type': code,
    });
    expect(span?.status.code).toBe(status >= 500 ? SpanStatusCode.ERROR : SpanStatusCode.UNSET);
    expect(await count('kyc.webhook.received', outcome)).toBe(before + 1);
    expect(JSON.stringify({ attributes: span?.attributes, status: span?.status })).not.toContain(AUTH_KEY);
  });

  it('processed, duplicate and in_progress carry the session, event id and idempotency key', async () => {
    const gate = deferred();
    const receiver = receiverWith(() => gate.promise);
    const init = requestInit(authorized(sampleStatusWebhook, { [HEADERS.webhookId]: 'evt_otel_1' }));
    const first = send(receiver, init);
    await send(receiver, init);
    expect(lastSpan()?.attributes).toMatchObject({
      'kyc.webhook.outcome': 'in_progress',
      'http.response.status_code': 409,
    });
    gate.resolve();
    await first;
    await send(receiver, init);
    const [inProgress, processed, duplicate] = spans.getFinishedSpans();
    expect([inProgress, processed, duplicate].map((s) => s?.attributes['kyc.webhook.outcome'])).toEqual([
      'in_progress',
      'processed',
      'duplicate',
    ]);
    for (const span of [inProgress, processed, duplicate]) {
      expect(span?.attributes).toMatchObject({
        'kyc.session.id': sampleStatusWebhook.sessionId,
        'kyc.webhook.event_id': 'evt_otel_1',
        'kyc.webhook.idempotency_key': expect.any(String),
      });
      expect(span?.attributes['error.type'] === undefined).toBe(span !== inProgress);
    }
    expect(processed?.attributes['kyc.webhook.handler.duration']).toBeGreaterThanOrEqual(0);
    const handled = (await points('kyc.webhook.handler.duration')).find((p) => p.attributes.outcome === 'processed');
    expect((handled?.value as Histogram | undefined)?.count).toBeGreaterThanOrEqual(1);
    const exported = JSON.stringify(spans.getFinishedSpans().map((s) => ({ a: s.attributes, e: s.events })));
    expect(exported).not.toContain(AUTH_KEY);
    expect(exported.toLowerCase()).not.toContain('bearer');
    expect(exported).not.toContain(JSON.stringify(sampleStatusWebhook));
  });

  it('continues an incoming traceparent only when trusted; otherwise links to it', async () => {
    const headers = { [HEADERS.webhookId]: 'evt_otel_trust', traceparent: INCOMING };
    await send(
      receiverWith(undefined, { trustTraceContext: true }),
      requestInit(authorized(sampleStatusWebhook, headers)),
    );
    const trusted = lastSpan();
    expect(trusted?.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(trusted?.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(trusted?.links).toEqual([]);

    await send(
      receiverWith(),
      requestInit(authorized(sampleStatusWebhook, { ...headers, [HEADERS.webhookId]: 'evt_2' })),
    );
    const untrusted = lastSpan();
    expect(untrusted?.spanContext().traceId).not.toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(untrusted?.parentSpanContext).toBeUndefined();
    expect(untrusted?.links.map((l) => l.context.spanId)).toEqual(['00f067aa0ba902b7']);
  });

  it('continues a trusted traceparent without a registered propagator, and links an untrusted one', async () => {
    // An application with a tracer provider but no global propagator: the API's propagator is a no-op.
    propagation.disable();
    try {
      const headers = { [HEADERS.webhookId]: 'evt_no_propagator', traceparent: INCOMING, tracestate: 'vendor=abc' };
      await send(
        receiverWith(undefined, { trustTraceContext: true }),
        requestInit(authorized(sampleStatusWebhook, headers)),
      );
      const trusted = lastSpan();
      expect(trusted?.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
      expect(trusted?.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
      expect(trusted?.spanContext().traceState?.get('vendor')).toBe('abc');

      await send(
        receiverWith(),
        requestInit(authorized(sampleStatusWebhook, { ...headers, [HEADERS.webhookId]: 'evt_no_propagator_2' })),
      );
      expect(lastSpan()?.links.map((l) => l.context.spanId)).toEqual(['00f067aa0ba902b7']);

      // What the W3C specification says to ignore starts a new trace, as a propagator would.
      for (const [index, bad] of [
        'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
        '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
        '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra',
        '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01',
      ].entries()) {
        const ids = { [HEADERS.webhookId]: `evt_bad_parent_${index}`, traceparent: bad };
        await send(
          receiverWith(undefined, { trustTraceContext: true }),
          requestInit(authorized(sampleStatusWebhook, ids)),
        );
        expect(lastSpan()?.parentSpanContext).toBeUndefined();
      }
    } finally {
      propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    }
  });

  it('records nothing with telemetry: false', async () => {
    await send(receiverWith(undefined, { telemetry: false }), requestInit(authorized(sampleStatusWebhook)));
    expect(spans.getFinishedSpans()).toEqual([]);
  });
});

describe('without @opentelemetry/api installed', () => {
  it('the receiver core runs and answers every request', () => {
    const script = fileURLToPath(new URL('../../test/support/receive-without-otel.ts', import.meta.url));
    const tsx = fileURLToPath(new URL('../../../../node_modules/.bin/tsx', import.meta.url));
    const run = spawnSync(
      tsx,
      ['--conditions=@kyc/source', '--import', '@kyc/test-support/hide-opentelemetry', script],
      {
        encoding: 'utf8',
        timeout: 60_000,
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
      },
    );
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ api: 'absent', statuses: [200, 200, 401] });
  });
});
