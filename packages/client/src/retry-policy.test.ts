import { describe, expect, it } from 'vitest';
import { backoffDelayMs, isRetryableStatus, MAX_RETRY_AFTER_SECONDS, parseRetryAfterMs } from './index.js';

describe('backoffDelayMs', () => {
  it('is full jitter under min(0.5·2ⁿ, 8) s', () => {
    expect([0, 1, 2, 3, 4, 5, 9].map((n) => backoffDelayMs(n, () => 1))).toEqual([
      500, 1000, 2000, 4000, 8000, 8000, 8000,
    ]);
    expect(backoffDelayMs(3, () => 0)).toBe(0);
    expect(backoffDelayMs(3, () => 0.25)).toBe(1000);
  });

  it('treats a broken random source as the full ceiling, never NaN or negative', () => {
    expect(backoffDelayMs(0, () => Number.NaN)).toBe(500);
    expect(backoffDelayMs(1, () => -3)).toBe(0);
    expect(backoffDelayMs(1, () => 7)).toBe(1000);
  });

  it('stays within bounds with the default random source', () => {
    for (let n = 0; n < 200; n += 1) {
      const value = backoffDelayMs(n % 8);
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThanOrEqual(8000);
    }
  });
});

describe('parseRetryAfterMs', () => {
  const now = Date.parse('2026-11-21T10:00:00Z');
  it.each([
    ['0', 0],
    ['7', 7000],
    [' 2 ', 2000],
    ['1.5', 1500],
    ['Sat, 21 Nov 2026 10:00:30 GMT', 30_000],
    ['Saturday, 21-Nov-26 10:00:30 GMT', 30_000],
    ['Sat, 21 Nov 2026 09:00:00 GMT', 0],
  ])('%j → %i ms', (value, expected) => {
    expect(parseRetryAfterMs(value, now)).toBe(expected);
  });

  it.each([null, undefined, '', 'soon', '-5', '12abc', 'Sat, 99 Foo 2026'])('%j → undefined', (value) => {
    expect(parseRetryAfterMs(value, now)).toBeUndefined();
  });
});

describe('isRetryableStatus', () => {
  it('retries exactly 408, 429, 500, 502, 503, 504', () => {
    const retryable = Array.from({ length: 500 }, (_, index) => index + 100).filter(isRetryableStatus);
    expect(retryable).toEqual([408, 429, 500, 502, 503, 504]);
    expect(MAX_RETRY_AFTER_SECONDS).toBe(60);
  });
});
