import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KycClient } from '@kyc/client';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createSandbox,
  jsonLogger,
  PROMETHEUS_CONTENT_TYPE,
  type RunningSandbox,
  SANDBOX_API,
  type SandboxTelemetry,
  startSandbox,
  startTelemetry,
} from '../src/index.js';
import { AUTH_KEY, api, eventually, PASSWORD, startTestReceiver, tempDir, USERNAME } from './helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Setup {
  readonly running: RunningSandbox;
  readonly receiver: Awaited<ReturnType<typeof startTestReceiver>>;
  readonly logLines: string[];
}

/** A sandbox with the real SDK, a JSON logger, and a receiver that fails once. */
async function setup(telemetry: SandboxTelemetry): Promise<Setup> {
  const dir = tempDir('kyc-sandbox-otel-');
  // The customer's receiver trusts the sandbox's traceparent: one trace from finish to its handler.
  const receiver = await startTestReceiver({ failFirst: true, trustTraceContext: true });
  const logLines: string[] = [];
  const running = await startSandbox({
    dataDir: dir.path,
    timeScale: 600,
    allowLoopbackTargets: true,
    trustedCa: [receiver.certificate.cert],
    telemetry,
    logger: jsonLogger((line) => logLines.push(line)),
  });
  cleanups.push(
    dir.remove,
    () => receiver.close(),
    () => running.close(),
  );
  await running.sandbox.addUser(USERNAME, PASSWORD);
  await api(running.url, 'PUT', SANDBOX_API.settings, { body: { webhookUrl: receiver.url, authKey: AUTH_KEY } });
  return { running, receiver, logLines };
}

async function finishOne(url: string): Promise<string> {
  const created = await api(url, 'POST', SANDBOX_API.sessions, { body: { status: 'APPROVED' } });
  const id = (created.json as { id: string }).id;
  await new KycClient({ baseUrl: url, username: USERNAME, password: PASSWORD, maxRetries: 0 }).finishSession(id);
  return id;
}

const family = (families: PrometheusFamily[], name: string) => families.find((f) => f.name === name);
const sample = (f: PrometheusFamily | undefined, labels: Record<string, string>) =>
  f?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));

describe('the sandbox as an observable service', () => {
  it('one trace from the client call to the receiver, a Prometheus scrape over HTTP, JSON logs with trace ids', async () => {
    const spans = new InMemorySpanExporter();
    const telemetry = startTelemetry({ env: {}, spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] });
    if (telemetry === undefined) throw new Error('telemetry should start');
    cleanups.push(() => telemetry.shutdown());
    const { running, receiver, logLines } = await setup(telemetry);

    const sessionId = await finishOne(running.url);
    await eventually(() => (receiver.events.some((e) => e.sessionId === sessionId) ? true : undefined));
    // The second attempt's span ends when its result is recorded, just after the 200.
    await eventually(() =>
      spans.getFinishedSpans().filter((s) => s.name === 'POST' && s.attributes['kyc.webhook.state'] === 'delivered')
        .length === 1
        ? true
        : undefined,
    );

    const finished = spans.getFinishedSpans();
    const finish = finished.find(
      (s) =>
        s.name.startsWith('POST') &&
        s.attributes['http.route'] !== undefined &&
        String(s.attributes['url.full']).endsWith('/session/finish'),
    );
    const enqueue = finished.find((s) => s.name === 'kyc.webhook.enqueue');
    const attempts = finished.filter((s) => s.name === 'POST' && s.attributes['kyc.webhook.attempt'] !== undefined);
    expect(finish).toBeDefined();
    const traceId = finish?.spanContext().traceId;
    expect(enqueue?.spanContext().traceId).toBe(traceId);
    expect(enqueue?.parentSpanContext?.spanId).toBe(finish?.spanContext().spanId);
    expect(enqueue?.attributes['kyc.session.id']).toBe(sessionId);
    expect(attempts.map((s) => s.attributes['http.response.status_code']).sort()).toEqual([200, 500]);
    for (const attempt of attempts) expect(attempt.spanContext().traceId).toBe(traceId);
    // Propagation is on in the sandbox: the receiver saw the attempt spans' context.
    const headers = receiver.requests
      .filter((r) => r.body.includes(sessionId))
      .map((r) => r.headers.get('traceparent'));
    expect(headers).toHaveLength(2);
    for (const header of headers) expect(header).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    // The client's CLIENT span is the finish request's parent (the client sends traceparent)...
    const call = finished.find(
      (s) =>
        s.kind === SpanKind.CLIENT &&
        s.attributes['http.route'] === undefined &&
        String(s.attributes['url.full']).endsWith('/session/finish'),
    );
    expect(call?.spanContext().traceId).toBe(traceId);
    expect(finish?.parentSpanContext?.spanId).toBe(call?.spanContext().spanId);
    // ...and the customer's receiver continued each attempt: its span is the attempt's child.
    await eventually(() =>
      spans.getFinishedSpans().filter((s) => s.name === 'kyc.webhook.receive').length === 2 ? true : undefined,
    );
    const receives = spans.getFinishedSpans().filter((s) => s.name === 'kyc.webhook.receive');
    const byParent = new Map(attempts.map((a) => [a.spanContext().spanId, a.attributes['kyc.webhook.attempt']]));
    expect(
      receives
        .map((r) => [byParent.get(r.parentSpanContext?.spanId ?? ''), r.attributes['kyc.webhook.outcome']])
        .sort(),
    ).toEqual([
      [1, 'handler_error'],
      [2, 'processed'],
    ]);
    for (const receive of receives) {
      expect(receive.kind).toBe(SpanKind.SERVER);
      expect(receive.spanContext().traceId).toBe(traceId);
      expect(receive.attributes['kyc.session.id']).toBe(sessionId);
    }

    // A real scrape over HTTP, parsed by a Prometheus text-format parser.
    const response = await fetch(`${running.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(PROMETHEUS_CONTENT_TYPE);
    const scrape = await response.text();
    // Prometheus's own parser and linter accept the exposition as a scrape would.
    const promtool = spawnSync('promtool', ['check', 'metrics'], { input: scrape, encoding: 'utf8' });
    expect(promtool.error, 'promtool (Debian package prometheus) must be installed').toBeUndefined();
    expect(promtool.stderr + promtool.stdout).toBe('');
    expect(promtool.status).toBe(0);
    // The names docs/observability.md, the dashboard and the alert rules use.
    const families = parsePrometheusTextFormat(scrape);
    const attemptsTotal = family(families, 'kyc_webhook_attempts_total');
    expect(attemptsTotal?.type).toBe('COUNTER');
    expect(Number(sample(attemptsTotal, { outcome: 'delivered' })?.value)).toBe(1);
    expect(Number(sample(attemptsTotal, { outcome: 'http_status' })?.value)).toBe(1);
    expect(Number(sample(family(families, 'kyc_webhook_deliveries_total'), { outcome: 'delivered' })?.value)).toBe(1);
    const duration = family(families, 'kyc_webhook_attempt_duration');
    expect(duration?.type).toBe('HISTOGRAM');
    expect(scrape).toMatch(/^kyc_webhook_attempt_duration_count\{outcome="delivered"[^}]*\} 1$/m);
    // One label set: the parser's cumulative +Inf bucket is the count of deliveries measured.
    expect(Number(family(families, 'kyc_webhook_delivery_lag')?.metrics[0]?.buckets?.['+Inf'])).toBe(1);
    const depth = family(families, 'kyc_webhook_queue_depth');
    expect(depth?.type).toBe('GAUGE');
    expect(depth?.metrics.map((m) => m.labels?.state).sort()).toEqual(['due', 'in_flight', 'waiting_retry']);
    expect(family(families, 'kyc_webhook_oldest_due_age')?.type).toBe('GAUGE');
    // No label value is a URL, an id or a key.
    const labelValues = families.flatMap((f) => f.metrics.flatMap((m) => Object.values(m.labels ?? {})));
    for (const value of labelValues) {
      expect(value).not.toContain(sessionId);
      expect(value).not.toContain(AUTH_KEY);
      expect(value).not.toContain(receiver.url);
    }

    // JSON logs: one object per line; an attempt's line carries its trace.
    const entries = logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const attemptLines = entries.filter((e) => e.event === 'webhook.attempt');
    expect(attemptLines.map((e) => e.outcome).sort()).toEqual(['delivered', 'server_error']);
    for (const entry of attemptLines) {
      expect(entry).toMatchObject({
        level: 'info',
        trace_id: traceId,
        span_id: expect.stringMatching(/^[0-9a-f]{16}$/),
      });
    }
    expect(logLines.join('')).not.toContain(AUTH_KEY);
    expect(logLines.join('')).not.toContain(PASSWORD);

    expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${running.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      status: 'ready',
      checks: { delivery_loop: 'ok', sandbox_store: 'ok', delivery_store: 'ok' },
    });
  });

  it('exports spans over OTLP to the endpoint named by OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    const received: { path: string; body: Buffer }[] = [];
    const collector = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ path: req.url ?? '', body: Buffer.concat(chunks) });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => collector.close(() => resolve())));
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    // The OTLP exporters read their variables from the process environment, as in production.
    const saved = { ...process.env };
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = endpoint;
    process.env.OTEL_SERVICE_NAME = 'kyc-sandbox-under-test';
    cleanups.push(() => {
      process.env = saved;
    });
    const telemetry = startTelemetry();
    if (telemetry === undefined) throw new Error('telemetry should start');
    expect(telemetry.exporters.traces).toEqual(['otlp']);
    let shut = false;
    cleanups.push(() => (shut ? undefined : telemetry.shutdown()));
    const { running, receiver } = await setup(telemetry);
    const sessionId = await finishOne(running.url);
    await eventually(() => (receiver.events.some((e) => e.sessionId === sessionId) ? true : undefined));
    await running.close();
    await telemetry.shutdown();
    shut = true;

    const traces = Buffer.concat(received.filter((r) => r.path === '/v1/traces').map((r) => r.body));
    expect(traces.includes('kyc.webhook.enqueue')).toBe(true);
    expect(traces.includes('kyc-sandbox-under-test')).toBe(true);
    expect(traces.includes(AUTH_KEY)).toBe(false);
    const exportedMetrics = Buffer.concat(received.filter((r) => r.path === '/v1/metrics').map((r) => r.body));
    expect(exportedMetrics.includes('kyc.webhook.attempts')).toBe(true);
  });

  it('readyz answers 503 with the reason until the delivery loop runs, and after close', async () => {
    const sandbox = await createSandbox({ dataDir: ':memory:' });
    const get = async (path: string) => sandbox.fetch(new Request(`http://sandbox.test${path}`));
    const before = await get('/readyz');
    expect(before.status).toBe(503);
    expect(await before.json()).toMatchObject({
      status: 'unavailable',
      reason: 'the delivery loop is not running',
      checks: { delivery_loop: 'failing', delivery_store: 'ok', sandbox_store: 'ok' },
    });
    expect((await get('/healthz')).status).toBe(200);
    // Without telemetry there is nothing to scrape, and the answer says how to get it.
    const metrics = await get('/metrics');
    expect(metrics.status).toBe(404);
    expect(await metrics.text()).toMatch(/telemetry/);
    await sandbox.start();
    expect((await get('/readyz')).status).toBe(200);
    await sandbox.close();
    const after = await get('/readyz');
    expect(after.status).toBe(503);
    expect(await after.json()).toMatchObject({ checks: { delivery_loop: 'failing', delivery_store: 'failing' } });
  });

  it('OTEL_SDK_DISABLED=true starts no SDK', () => {
    expect(startTelemetry({ env: { OTEL_SDK_DISABLED: 'true' } })).toBeUndefined();
  });
});
