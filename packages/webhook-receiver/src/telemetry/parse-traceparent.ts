import type { SpanContext } from '@opentelemetry/api';
import type { OtelApi } from './load-api.js';

// W3C Trace Context, level 1: version-traceid-parentid-flags; a later version may append fields.
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * The sender's span context from a W3C `traceparent` (and `tracestate`) header, read without a
 * propagator. An application that registered a tracer provider but no global propagator has a
 * no-op one, which extracts nothing: with `trustTraceContext` the receiver would silently start
 * a new trace. The format is fixed by the W3C, so the receiver reads it itself when the
 * propagator found nothing. `undefined` for anything the specification says to ignore.
 */
export function parseTraceparent(
  api: OtelApi,
  traceparent: string,
  tracestate: string | undefined,
): SpanContext | undefined {
  const match = TRACEPARENT.exec(traceparent.trim());
  if (match === null) return undefined;
  const [, version, traceId = '', spanId = '', flags = '00', rest] = match;
  // Version ff is invalid; version 00 has exactly four fields.
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  const context: SpanContext = { traceId, spanId, traceFlags: Number.parseInt(flags, 16), isRemote: true };
  if (!api.trace.isSpanContextValid(context)) return undefined;
  if (tracestate !== undefined && typeof api.createTraceState === 'function') {
    context.traceState = api.createTraceState(tracestate);
  }
  return context;
}
