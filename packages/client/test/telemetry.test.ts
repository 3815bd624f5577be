import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sampleSessionDetails } from '@kyc/contracts';
import { context, propagation, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { AlwaysOffSampler, InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KycAbortError, KycApiError, KycClient, KycTimeoutError } from '../src/index.js';

// The real fetch against a node:http server on loopback, traced by the real SDK.
const USERNAME = 'acme';
const PASSWORD = 'telemetry-pw-7d2f4c1e';
const spans = new InMemorySpanExporter();
const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] });
const seenTraceparents: (string | undefined)[] = [];
let server: Server;
let baseUrl: string;
let calls = 0;

function answer(request: IncomingMessage, response: ServerResponse) {
  calls++;
  seenTraceparents.push(request.headers.traceparent as string | undefined);
  const path = request.url ?? '';
  if (path.includes('hang')) return; // never answers: the attempt times out
  // Finishing fails once with 503, then succeeds.
  const status = path.endsWith('/session/finish') && calls % 2 === 1 ? 503 : 200;
  response.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req-${calls}` });
  response.end(
    JSON.stringify(status === 200 ? sampleSessionDetails : { error: { code: 'UNAVAILABLE', message: 'try later' } }),
  );
}

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => answer(request, response));
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(() => {
  spans.reset();
  seenTraceparents.length = 0;
});
afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await tracerProvider.shutdown();
  propagation.disable();
  context.disable();
});

const clientWith = (extra: Record<string, unknown> = {}) =>
  new KycClient({
    baseUrl,
    username: USERNAME,
    password: PASSWORD,
    sleep: async () => {},
    telemetry: { tracerProvider },
    ...extra,
  });

describe('client spans with a registered SDK', () => {
  it('one HTTP CLIENT span per attempt, the retry counted, the request id kept, traceparent sent', async () => {
    calls = 0;
    const parent = tracerProvider.getTracer('test');
    await parent.startActiveSpan('checkout', async (span) => {
      await clientWith().finishSession(sampleSessionDetails.id);
      span.end();
    });
    const [first, second, checkout] = spans.getFinishedSpans();
    expect(checkout?.name).toBe('checkout');
    expect([first?.name, second?.name]).toEqual(['POST', 'POST']);
    for (const span of [first, second]) {
      expect(span?.kind).toBe(SpanKind.CLIENT);
      expect(span?.parentSpanContext?.spanId).toBe(checkout?.spanContext().spanId);
    }
    const port = Number(new URL(baseUrl).port);
    expect(first?.attributes).toEqual({
      'http.request.method': 'POST',
      'server.address': '127.0.0.1',
      'server.port': port,
      'url.full': `${baseUrl}/api/v1/kyc/session/finish`,
      'http.response.status_code': 503,
      'kyc.request.id': 'req-1',
      'error.type': '503',
    });
    expect(first?.status.code).toBe(SpanStatusCode.ERROR);
    expect(second?.attributes).toMatchObject({
      'http.request.resend_count': 1,
      'http.response.status_code': 200,
      'kyc.request.id': 'req-2',
    });
    expect(second?.attributes['error.type']).toBeUndefined();
    // The service continues each attempt's own span.
    expect(seenTraceparents).toEqual(
      [first, second].map((s) => `00-${s?.spanContext().traceId}-${s?.spanContext().spanId}-01`),
    );
    const exported = JSON.stringify(spans.getFinishedSpans().map((s) => [s.attributes, s.status, s.events]));
    expect(exported).not.toContain(PASSWORD);
    expect(exported.toLowerCase()).not.toContain('basic ');
    expect(exported.toLowerCase()).not.toContain('authorization');
  });

  it('an attempt without an answer ends with error.type timeout', async () => {
    const client = clientWith({ timeoutMs: 100, maxRetries: 0, baseUrl: `${baseUrl}/hang` });
    await expect(client.getSession(sampleSessionDetails.id)).rejects.toBeInstanceOf(KycTimeoutError);
    const [span] = spans.getFinishedSpans();
    expect(span?.name).toBe('GET');
    expect(span?.attributes['error.type']).toBe('timeout');
    expect(span?.attributes['http.response.status_code']).toBeUndefined();
  });

  it('an attempt the caller aborts ends, before the call rejects, with error.type aborted', async () => {
    const controller = new AbortController();
    const call = clientWith({ baseUrl: `${baseUrl}/hang` }).getSession(sampleSessionDetails.id, {
      signal: controller.signal,
    });
    // Abort once the service has the request, so the attempt is in flight.
    while (seenTraceparents.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await expect(call).rejects.toBeInstanceOf(KycAbortError);
    const [span] = spans.getFinishedSpans();
    expect(span?.attributes['error.type']).toBe('aborted');
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('a sampled-out attempt records nothing but still sends its traceparent (sampled flag off)', async () => {
    calls = 1; // the next finish answers 200 at once
    const sampledOut = new TracerProvider({
      sampler: new AlwaysOffSampler(),
      spanProcessors: [new SimpleSpanProcessor({ exporter: spans })],
    });
    await expect(
      clientWith({ telemetry: { tracerProvider: sampledOut } }).finishSession(sampleSessionDetails.id),
    ).resolves.toBeDefined();
    expect(spans.getFinishedSpans()).toEqual([]);
    expect(seenTraceparents).toHaveLength(1);
    expect(seenTraceparents[0]).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    await sampledOut.shutdown();
  });

  it('no span and no traceparent with telemetry: false', async () => {
    calls = 1; // the next finish answers 200 at once
    await expect(clientWith({ telemetry: false }).finishSession(sampleSessionDetails.id)).resolves.toBeDefined();
    expect(spans.getFinishedSpans()).toEqual([]);
    expect(seenTraceparents).toEqual([undefined]);
  });

  it('rejects a tracerProvider that is not one', () => {
    expect(() => clientWith({ telemetry: { tracerProvider: {} } })).toThrow(/telemetry\.tracerProvider/);
    expect(KycApiError).toBeDefined();
  });
});
