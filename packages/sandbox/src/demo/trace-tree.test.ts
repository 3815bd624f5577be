import { type Context, context, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { traceTree } from './trace-tree.js';

/** Spans written by a real SDK under the scope names the packages use, parent by parent. */
function recorder() {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const span = (scope: string, name: string, parent: Context, attributes: Record<string, string | number> = {}) => {
    const started = provider.getTracer(scope).startSpan(name, { kind: SpanKind.INTERNAL, attributes }, parent);
    started.end();
    return trace.setSpan(context.active(), started);
  };
  return { span, spans: () => exporter.getFinishedSpans() };
}

describe('traceTree', () => {
  it('draws the chain client → service → enqueue → attempts → receiver, children in start order', () => {
    const { span, spans } = recorder();
    const client = span('@kyc/client', 'POST', ROOT_CONTEXT, { 'url.full': 'http://127.0.0.1:1/finish' });
    const server = span('@hono/otel', 'POST /finish', client, { 'http.response.status_code': 200 });
    const enqueue = span('@kyc/delivery-engine', 'kyc.webhook.enqueue', server, { 'kyc.session.id': 'sess_1' });
    const first = span('@kyc/delivery-engine', 'POST', enqueue, {
      'kyc.webhook.attempt': 1,
      'url.full': 'https://r/h',
    });
    span('@kyc/webhook-receiver', 'kyc.webhook.receive', first, { 'kyc.webhook.outcome': 'handler_error' });
    const second = span('@kyc/delivery-engine', 'POST', enqueue, { 'kyc.webhook.attempt': 2 });
    span('@kyc/webhook-receiver', 'kyc.webhook.receive', second, { 'kyc.webhook.outcome': 'processed' });

    const tree = traceTree(spans(), 'sess_1');
    expect(tree.problems).toEqual([]);
    expect(tree.lines.map((line) => line.replace(/, [\d.]+ ms$/, ''))).toEqual([
      `trace ${trace.getSpanContext(client)?.traceId}`,
      '  └─ POST http://127.0.0.1:1/finish (@kyc/client)',
      '    └─ POST /finish (@hono/otel) HTTP 200',
      '      └─ kyc.webhook.enqueue (@kyc/delivery-engine)',
      '        └─ POST https://r/h (@kyc/delivery-engine) attempt #1',
      '          └─ kyc.webhook.receive (@kyc/webhook-receiver) handler_error',
      '        └─ POST (@kyc/delivery-engine) attempt #2',
      '          └─ kyc.webhook.receive (@kyc/webhook-receiver) processed',
    ]);
  });

  it('reports a receiver that started its own trace, and a session with no enqueue span', () => {
    const { span, spans } = recorder();
    const client = span('@kyc/client', 'POST', ROOT_CONTEXT);
    const enqueue = span('@kyc/delivery-engine', 'kyc.webhook.enqueue', client, { 'kyc.session.id': 'sess_2' });
    span('@kyc/delivery-engine', 'POST', enqueue, { 'kyc.webhook.attempt': 1 });
    // An untrusted traceparent: the receiver's span is a root of a trace of its own.
    span('@kyc/webhook-receiver', 'kyc.webhook.receive', ROOT_CONTEXT);
    expect(traceTree(spans(), 'sess_2').problems).toEqual([
      "the receiver's span is not in the trace of session sess_2",
    ]);
    expect(traceTree(spans(), 'sess_unknown')).toEqual({
      lines: [],
      problems: ['no enqueue span for session sess_unknown'],
    });
  });

  it('reports a chain whose root is not the client call', () => {
    const { span, spans } = recorder();
    const enqueue = span('@kyc/delivery-engine', 'kyc.webhook.enqueue', ROOT_CONTEXT, { 'kyc.session.id': 'sess_3' });
    const attempt = span('@kyc/delivery-engine', 'POST', enqueue, { 'kyc.webhook.attempt': 1 });
    span('@kyc/webhook-receiver', 'kyc.webhook.receive', attempt);
    expect(traceTree(spans(), 'sess_3').problems).toEqual([
      'the trace of session sess_3 is broken: @kyc/delivery-engine:kyc.webhook.enqueue → @kyc/delivery-engine:POST → @kyc/webhook-receiver:kyc.webhook.receive',
    ]);
  });
});
