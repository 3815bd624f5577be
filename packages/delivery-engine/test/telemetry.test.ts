import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HEADERS, WEBHOOK_MAX_ATTEMPTS, WEBHOOK_RETRY_DELAYS_MS } from '@kyc/contracts';
import { metrics, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Histogram } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createDeliveryEngine,
  createManualClock,
  type DeliveryEngine,
  type DeliveryEngineOptions,
  type DeliveryStore,
  type ManualClock,
  sqliteDeliveryStore,
} from '../src/index.js';
import { bodyFor, pause, recordAttempts } from './support/attempts.js';
import { type Answer, loopbackOptions, startReceiver, TEST_HOST, type TestReceiver } from './support/receiver.js';
import { scriptedResolver } from './support/scripted-resolver.js';
import { createTestTelemetry, pointValue, type TestTelemetry } from './support/telemetry.js';

const T0 = Date.parse('2026-11-22T06:00:00.000Z');
const [D1 = 0, D2 = 0, D3 = 0] = WEBHOOK_RETRY_DELAYS_MS;
const AUTH_KEY = 'Zq8!fT3#pLw6@xN1$vB4';

let telemetry: TestTelemetry;
let receiver: TestReceiver | undefined;
const engines: DeliveryEngine[] = [];
const dirs: string[] = [];

beforeEach(() => {
  telemetry = createTestTelemetry();
});
afterEach(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.stop({ graceMs: 0 })));
  await receiver?.close();
  receiver = undefined;
  await telemetry.shutdown();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function engineFor(
  clock: ManualClock,
  overrides: Partial<DeliveryEngineOptions> & { readonly useGlobal?: true } = {},
  path = ':memory:',
): Promise<{ engine: DeliveryEngine; store: DeliveryStore; attempts: ReturnType<typeof recordAttempts> }> {
  const attempts = recordAttempts();
  const { useGlobal, ...rest } = overrides;
  const store = sqliteDeliveryStore({ path });
  const engine = createDeliveryEngine({
    store,
    clock,
    ...(await loopbackOptions()),
    ...(useGlobal === undefined && {
      telemetry: { tracerProvider: telemetry.tracerProvider, meterProvider: telemetry.meterProvider },
    }),
    onAttempt: attempts.onAttempt,
    ...rest,
  });
  engines.push(engine);
  await engine.start();
  return { engine, store, attempts };
}

/** Waits until the engine's loop sleeps on the manual clock again. */
async function settle(clock: ManualClock): Promise<void> {
  for (let i = 0; i < 200 && clock.sleepers === 0; i++) await pause(5);
  await pause(30);
}

/** Enqueues inside an active `finish` span, as the sandbox's API handler does. */
async function enqueueInFinishSpan(engine: DeliveryEngine, url: string, sessionId: string) {
  const tracer = telemetry.tracerProvider.getTracer('test');
  return tracer.startActiveSpan('finish', async (span) => {
    try {
      return await engine.enqueue({ url, body: bodyFor(sessionId), authKey: AUTH_KEY, companyId: 'acme' });
    } finally {
      span.end();
    }
  });
}

const named = (name: string) => telemetry.spans().filter((span) => span.name === name);
const byAttempt = (spans: ReadableSpan[]) =>
  [...spans].sort((a, b) => Number(a.attributes['kyc.webhook.attempt']) - Number(b.attributes['kyc.webhook.attempt']));

/** Nothing exported may carry the Auth Key, the Authorization header or the webhook body. */
async function expectNoSecrets(sessionId: string): Promise<void> {
  const body = bodyFor(sessionId);
  const exported = JSON.stringify({
    spans: telemetry
      .spans()
      .map((s) => ({ name: s.name, attributes: s.attributes, status: s.status, events: s.events })),
    metrics: (await telemetry.collect()).scopeMetrics.flatMap((scope) =>
      scope.metrics.map((m) => ({ name: m.descriptor.name, points: m.dataPoints.map((p) => p.attributes) })),
    ),
  });
  expect(exported).not.toContain(AUTH_KEY);
  expect(exported.toLowerCase()).not.toContain('bearer');
  expect(exported.toLowerCase()).not.toContain('authorization');
  expect(exported).not.toContain(body);
  expect(exported).not.toContain(JSON.stringify(body).slice(1, -1));
}

describe('engine spans and metrics with a registered SDK', () => {
  it('a first-try delivery: finish → enqueue → one POST client span, linked, and the traceparent sent', async () => {
    const clock = createManualClock(T0);
    receiver = await startReceiver();
    const { attempts } = await engineFor(clock, { propagateTraceContext: true }).then(async (setup) => {
      await enqueueInFinishSpan(setup.engine, `${receiver?.url}?token=s3cr3t-query`, 'sess-first');
      return setup;
    });
    await attempts.waitFor(1);

    const [finish] = named('finish');
    const [enqueue] = named('kyc.webhook.enqueue');
    const [post] = named('POST');
    expect(finish && enqueue && post).toBeTruthy();
    if (finish === undefined || enqueue === undefined || post === undefined) return;
    const traceId = finish.spanContext().traceId;

    expect(enqueue.kind).toBe(SpanKind.PRODUCER);
    expect(enqueue.spanContext().traceId).toBe(traceId);
    expect(enqueue.parentSpanContext?.spanId).toBe(finish.spanContext().spanId);
    expect(enqueue.attributes).toMatchObject({
      'kyc.session.id': 'sess-first',
      'kyc.company.id': 'acme',
      'kyc.webhook.event_id': expect.stringMatching(/^evt_/),
    });

    expect(post.kind).toBe(SpanKind.CLIENT);
    expect(post.spanContext().traceId).toBe(traceId);
    expect(post.parentSpanContext?.spanId).toBe(enqueue.spanContext().spanId);
    expect(post.links.map((link) => link.context.spanId)).toEqual([enqueue.spanContext().spanId]);
    expect(post.attributes).toEqual({
      'http.request.method': 'POST',
      'server.address': '127.0.0.1',
      'server.port': receiver.port,
      'url.full': `https://127.0.0.1:${receiver.port}/hook?token=REDACTED`,
      'http.response.status_code': 200,
      'network.peer.address': '127.0.0.1',
      'kyc.webhook.event_id': enqueue.attributes['kyc.webhook.event_id'],
      'kyc.webhook.attempt': 1,
      'kyc.webhook.outcome': 'delivered',
      'kyc.webhook.state': 'delivered',
      'kyc.session.id': 'sess-first',
      'kyc.company.id': 'acme',
    });
    expect(post.status.code).toBe(SpanStatusCode.UNSET);
    // The receiver can continue the trace: the header names the attempt span.
    expect(receiver.requests[0]?.headers.traceparent).toBe(`00-${traceId}-${post.spanContext().spanId}-01`);

    expect(pointValue(await telemetry.points('kyc.webhook.attempts'), { outcome: 'delivered' })).toBe(1);
    expect(pointValue(await telemetry.points('kyc.webhook.deliveries'), { outcome: 'delivered' })).toBe(1);
    expect(pointValue(await telemetry.points('kyc.webhook.attempt.duration'), { outcome: 'delivered' })).toBe(1);
    const [lag] = await telemetry.points('kyc.webhook.delivery.lag');
    expect((lag?.value as Histogram | undefined)?.count).toBe(1);
    await expectNoSecrets('sess-first');
  });

  it('a delivery that succeeds on the third attempt: three spans in one trace, queue gauges between them', async () => {
    const clock = createManualClock(T0);
    const answers: Answer[] = [500, 503, 200];
    receiver = await startReceiver((r) => answers[Number(r.headers[HEADERS.webhookAttempt]) - 1] ?? 200);
    const { engine, attempts } = await engineFor(clock);
    const { id } = await enqueueInFinishSpan(engine, receiver.url, 'sess-third');
    await attempts.waitFor(1);
    await settle(clock);

    // Between attempts: one delivery waiting for its retry, none due, none in flight.
    const depth = await telemetry.points('kyc.webhook.queue.depth');
    expect(pointValue(depth, { state: 'waiting_retry' })).toBe(1);
    expect(pointValue(depth, { state: 'due' })).toBe(0);
    expect(pointValue(depth, { state: 'in_flight' })).toBe(0);
    expect(pointValue(await telemetry.points('kyc.webhook.oldest_due.age'))).toBe(0);

    clock.advance(D1);
    await attempts.waitFor(2);
    await settle(clock);
    clock.advance(D2);
    await attempts.waitFor(3);

    const [enqueue] = named('kyc.webhook.enqueue');
    const posts = byAttempt(named('POST'));
    expect(posts.map((s) => s.attributes['kyc.webhook.attempt'])).toEqual([1, 2, 3]);
    expect(posts.map((s) => s.attributes['http.request.resend_count'])).toEqual([undefined, 1, 2]);
    expect(posts.map((s) => s.attributes['http.response.status_code'])).toEqual([500, 503, 200]);
    expect(posts.map((s) => s.attributes['error.type'])).toEqual(['500', '503', undefined]);
    expect(posts.map((s) => s.status.code)).toEqual([SpanStatusCode.ERROR, SpanStatusCode.ERROR, SpanStatusCode.UNSET]);
    expect(posts.map((s) => s.attributes['kyc.webhook.state'])).toEqual(['pending', 'pending', 'delivered']);
    for (const post of posts) {
      expect(post.attributes['kyc.webhook.event_id']).toBe(id);
      expect(post.spanContext().traceId).toBe(enqueue?.spanContext().traceId);
      expect(post.links[0]?.context.spanId).toBe(enqueue?.spanContext().spanId);
    }
    // Off by default: a customer's endpoint sees no trace ids.
    expect(receiver.requests.every((r) => r.headers.traceparent === undefined)).toBe(true);

    const counted = await telemetry.points('kyc.webhook.attempts');
    expect(pointValue(counted, { outcome: 'http_status' })).toBe(2);
    expect(pointValue(counted, { outcome: 'delivered' })).toBe(1);
    expect(pointValue(await telemetry.points('kyc.webhook.deliveries'), { outcome: 'delivered' })).toBe(1);
    const [lag] = await telemetry.points('kyc.webhook.delivery.lag');
    // Enqueue to the 200, on the engine's clock: the two retry delays.
    expect((lag?.value as Histogram | undefined)?.sum).toBeCloseTo((D1 + D2) / 1000, 0);
    await expectNoSecrets('sess-third');
  });

  it('a delivery that ends failed after the last retry', async () => {
    const clock = createManualClock(T0);
    receiver = await startReceiver(() => 500);
    const { engine, attempts } = await engineFor(clock);
    await enqueueInFinishSpan(engine, receiver.url, 'sess-failed');
    await attempts.waitFor(1);
    for (const [n, delay] of [D1, D2, D3].entries()) {
      await settle(clock);
      clock.advance(delay);
      await attempts.waitFor(n + 2);
    }
    const posts = byAttempt(named('POST'));
    expect(posts).toHaveLength(WEBHOOK_MAX_ATTEMPTS);
    expect(posts.at(-1)?.attributes).toMatchObject({ 'kyc.webhook.attempt': 4, 'kyc.webhook.state': 'failed' });
    expect(pointValue(await telemetry.points('kyc.webhook.attempts'), { outcome: 'http_status' })).toBe(4);
    const deliveries = await telemetry.points('kyc.webhook.deliveries');
    expect(pointValue(deliveries, { outcome: 'failed' })).toBe(1);
    expect(pointValue(deliveries, { outcome: 'delivered' })).toBe(0);
    expect(await telemetry.points('kyc.webhook.delivery.lag')).toEqual([]);
    await expectNoSecrets('sess-failed');
  });

  it('an SSRF rejection at send time: error.type blocked_address, counted as rejected_target, nothing sent', async () => {
    const clock = createManualClock(T0);
    receiver = await startReceiver();
    // Public-looking at enqueue, cloud metadata at send time (DNS rebinding).
    const resolver = scriptedResolver(['127.0.0.1'], ['169.254.169.254']);
    const { engine, attempts } = await engineFor(clock, { resolver });
    await enqueueInFinishSpan(engine, `https://${TEST_HOST}:${receiver.port}/hook`, 'sess-ssrf');
    await attempts.waitFor(1);
    const [post] = named('POST');
    expect(post?.attributes).toMatchObject({
      'server.address': TEST_HOST,
      'error.type': 'blocked_address',
      'kyc.webhook.outcome': 'blocked_address',
    });
    expect(post?.attributes['http.response.status_code']).toBeUndefined();
    expect(post?.status.code).toBe(SpanStatusCode.ERROR);
    expect(pointValue(await telemetry.points('kyc.webhook.attempts'), { outcome: 'rejected_target' })).toBe(1);
    expect(receiver.requests).toHaveLength(0);
    await expectNoSecrets('sess-ssrf');
  });

  it('a restart between attempts: the next engine links its attempt to the stored enqueue span', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kyc-otel-restart-'));
    dirs.push(dir);
    const path = join(dir, 'deliveries.db');
    const clock = createManualClock(T0);
    receiver = await startReceiver((r) => (r.headers[HEADERS.webhookAttempt] === '1' ? 500 : 200));
    const first = await engineFor(clock, {}, path);
    const { id } = await enqueueInFinishSpan(first.engine, receiver.url, 'sess-restart');
    await first.attempts.waitFor(1);
    await first.engine.stop();
    // The file has one owner at a time: the first engine's process lets go of it.
    await first.store.close();
    const [enqueue] = named('kyc.webhook.enqueue');

    // A new engine over the same file knows nothing in memory about the first one.
    clock.advance(D1);
    const second = await engineFor(clock, {}, path);
    await second.attempts.waitFor(1);
    const [, retry] = byAttempt(named('POST'));
    expect(retry?.attributes).toMatchObject({ 'kyc.webhook.attempt': 2, 'kyc.webhook.event_id': id });
    expect(retry?.spanContext().traceId).toBe(enqueue?.spanContext().traceId);
    expect(retry?.links.map((link) => link.context.spanId)).toEqual([enqueue?.spanContext().spanId]);
    await expectNoSecrets('sess-restart');
  });
});

describe('where the engine finds its providers', () => {
  afterEach(() => {
    trace.disable();
    metrics.disable();
  });

  it('uses the globally registered SDK by default, and nothing with telemetry: false', async () => {
    trace.setGlobalTracerProvider(telemetry.tracerProvider);
    metrics.setGlobalMeterProvider(telemetry.meterProvider);
    receiver = await startReceiver();
    const clock = createManualClock(T0);
    const on = await engineFor(clock, { useGlobal: true });
    await on.engine.enqueue({ url: receiver.url, body: bodyFor('sess-global') });
    await on.attempts.waitFor(1);
    expect(named('POST')).toHaveLength(1);

    telemetry.reset();
    const off = await engineFor(clock, { telemetry: false });
    await off.engine.enqueue({ url: receiver.url, body: bodyFor('sess-off') });
    await off.attempts.waitFor(1);
    expect(telemetry.spans()).toEqual([]);
  });

  it('rejects a provider that is not one, naming the option', () => {
    expect(() =>
      createDeliveryEngine({
        store: sqliteDeliveryStore({ path: ':memory:' }),
        telemetry: { tracerProvider: {} as never },
      }),
    ).toThrow(/telemetry\.tracerProvider/);
    expect(() =>
      createDeliveryEngine({ store: sqliteDeliveryStore({ path: ':memory:' }), propagateTraceContext: 'yes' as never }),
    ).toThrow(/propagateTraceContext/);
  });
});
