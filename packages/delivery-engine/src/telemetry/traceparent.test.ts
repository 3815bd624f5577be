import { describe, expect, it } from 'vitest';
import { formatTraceparent, parseTraceparent } from './traceparent.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('traceparent', () => {
  it('round-trips a sampled and an unsampled context', () => {
    for (const traceFlags of [0, 1]) {
      const value = formatTraceparent({ traceId: TRACE, spanId: SPAN, traceFlags });
      expect(value).toBe(`00-${TRACE}-${SPAN}-0${traceFlags}`);
      expect(parseTraceparent(value)).toEqual({ traceId: TRACE, spanId: SPAN, traceFlags, isRemote: true });
    }
  });

  it('refuses invalid contexts and malformed values instead of storing or trusting them', () => {
    expect(formatTraceparent({ traceId: '0'.repeat(32), spanId: SPAN, traceFlags: 1 })).toBeUndefined();
    expect(formatTraceparent({ traceId: TRACE, spanId: '0'.repeat(16), traceFlags: 1 })).toBeUndefined();
    for (const bad of [
      undefined,
      '',
      `01-${TRACE}-${SPAN}-01`,
      `00-${TRACE.toUpperCase()}-${SPAN}-01`,
      `00-${'0'.repeat(32)}-${SPAN}-01`,
      `00-${TRACE}-${SPAN}-01-extra`,
      `00-${TRACE}-${SPAN}`,
    ]) {
      expect(parseTraceparent(bad)).toBeUndefined();
    }
  });
});
