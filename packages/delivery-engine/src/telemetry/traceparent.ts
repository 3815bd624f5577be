import type { SpanContext } from '@opentelemetry/api';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/**
 * A span context as a W3C `traceparent` value (version 00), or `undefined` for an invalid
 * (all-zero) context. Written by hand rather than through the global propagator: the value
 * stored with a job and the header sent must be W3C whatever propagators the host configured.
 *
 * @example
 * ```ts
 * formatTraceparent(span.spanContext()); // '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'
 * ```
 */
export function formatTraceparent(context: SpanContext): string | undefined {
  const { traceId, spanId, traceFlags } = context;
  if (!TRACE_ID.test(traceId) || !SPAN_ID.test(spanId) || traceId === ZERO_TRACE || spanId === ZERO_SPAN) {
    return undefined;
  }
  return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;

/** Parses a stored `traceparent` back into a remote span context; `undefined` if malformed. */
export function parseTraceparent(value: string | undefined): SpanContext | undefined {
  if (value === undefined) return undefined;
  const match = TRACEPARENT.exec(value);
  if (match === null) return undefined;
  const [, traceId = '', spanId = '', flags = '00'] = match;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16), isRemote: true };
}
