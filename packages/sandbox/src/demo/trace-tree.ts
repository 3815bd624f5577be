import type { ReadableSpan } from '@opentelemetry/sdk-trace';

/** What {@link traceTree} found: the printable tree and what is missing from the chain. */
export interface TraceTree {
  readonly lines: readonly string[];
  readonly problems: readonly string[];
}

const ms = (span: ReadableSpan) => (span.duration[0] * 1e3 + span.duration[1] / 1e6).toFixed(1);
const startOf = (span: ReadableSpan) => span.startTime[0] * 1e9 + span.startTime[1];

/** One line per span: its name, who wrote it, the attributes that tell the story, its duration. */
function describeSpan(span: ReadableSpan): string {
  const a = span.attributes;
  const details = [
    a['kyc.webhook.attempt'] !== undefined ? `attempt #${a['kyc.webhook.attempt']}` : undefined,
    a['http.response.status_code'] !== undefined ? `HTTP ${a['http.response.status_code']}` : undefined,
    a['kyc.webhook.outcome'] !== undefined ? `${a['kyc.webhook.outcome']}` : undefined,
  ].filter((part) => part !== undefined);
  // An HTTP client span is named by its method alone: its URL says where it went.
  const target = /^[A-Z]+$/.test(span.name) && a['url.full'] !== undefined ? ` ${a['url.full']}` : '';
  return `${span.name}${target} (${span.instrumentationScope.name})${details.length > 0 ? ` ${details.join(', ')}` : ''}, ${ms(span)} ms`;
}

/**
 * The demo's proof that one trace runs from the client's `finishSession` call to the customer's
 * handler: the trace holding the enqueue span of `sessionId`, drawn as a tree (children by start
 * time), and a problem for each link of the chain client → service → enqueue → attempt →
 * receiver that is missing.
 */
export function traceTree(spans: readonly ReadableSpan[], sessionId: string): TraceTree {
  const enqueue = spans.find((s) => s.name === 'kyc.webhook.enqueue' && s.attributes['kyc.session.id'] === sessionId);
  if (enqueue === undefined) return { lines: [], problems: [`no enqueue span for session ${sessionId}`] };
  const traceId = enqueue.spanContext().traceId;
  const inTrace = spans.filter((s) => s.spanContext().traceId === traceId);
  const ids = new Set(inTrace.map((s) => s.spanContext().spanId));
  const children = new Map<string | undefined, ReadableSpan[]>();
  for (const span of inTrace) {
    const parent = span.parentSpanContext?.spanId;
    const key = parent !== undefined && ids.has(parent) ? parent : undefined;
    children.set(key, [...(children.get(key) ?? []), span]);
  }
  const lines: string[] = [`trace ${traceId}`];
  const draw = (parent: string | undefined, depth: number) => {
    for (const span of [...(children.get(parent) ?? [])].sort((x, y) => startOf(x) - startOf(y))) {
      lines.push(`${'  '.repeat(depth + 1)}└─ ${describeSpan(span)}`);
      draw(span.spanContext().spanId, depth + 1);
    }
  };
  draw(undefined, 0);

  const byId = new Map(inTrace.map((s) => [s.spanContext().spanId, s]));
  const ancestry = (span: ReadableSpan): string[] => {
    const names: string[] = [];
    for (let at: ReadableSpan | undefined = span; at !== undefined; ) {
      names.push(`${at.instrumentationScope.name}:${at.name}`);
      const parent: string | undefined = at.parentSpanContext?.spanId;
      at = parent === undefined ? undefined : byId.get(parent);
    }
    return names.reverse();
  };
  const problems: string[] = [];
  const receives = inTrace.filter((s) => s.name === 'kyc.webhook.receive');
  if (receives.length === 0) problems.push(`the receiver's span is not in the trace of session ${sessionId}`);
  for (const receive of receives) {
    const path = ancestry(receive);
    const expected = ['@kyc/client:', ':kyc.webhook.enqueue', '@kyc/delivery-engine:POST', '@kyc/webhook-receiver:'];
    const missing = expected.filter((part) => !path.some((step) => step.includes(part)));
    if (missing.length > 0 || !path[0]?.startsWith('@kyc/client:')) {
      problems.push(`the trace of session ${sessionId} is broken: ${path.join(' → ')}`);
    }
  }
  return { lines, problems };
}
