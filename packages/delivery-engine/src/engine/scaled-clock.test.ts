import { describe, expect, it } from 'vitest';
import { scaledClock } from './scaled-clock.js';

describe('scaledClock', () => {
  it('runs `scale` times faster than the wall clock and converts back for display', () => {
    let wall = 1_000_000;
    const clock = scaledClock(60, { wallNow: () => wall });
    expect(clock.now()).toBe(1_000_000);
    wall += 1000;
    expect(clock.now()).toBe(1_000_000 + 60_000);
    expect(clock.toWall(clock.now())).toBe(wall);
  });

  it('sleeps 1/scale of the requested time and wakes at once on abort', async () => {
    const clock = scaledClock(100);
    const started = performance.now();
    await clock.sleep(5000, new AbortController().signal);
    const slept = performance.now() - started;
    expect(slept).toBeGreaterThanOrEqual(45);
    expect(slept).toBeLessThan(2000);
    const abort = new AbortController();
    const pending = clock.sleep(3_600_000, abort.signal);
    abort.abort();
    await expect(pending).resolves.toBeUndefined();
  });

  it('agrees across clocks made at different times from one anchor', () => {
    let wall = 5_000;
    const first = scaledClock(10, { anchor: 1_000, wallNow: () => wall });
    wall = 9_000;
    const second = scaledClock(10, { anchor: 1_000, wallNow: () => wall });
    expect(first.now()).toBe(second.now());
    expect(first.now()).toBe(1_000 + 8_000 * 10);
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('refuses the scale %s with a typed error', (scale) => {
    expect(() => scaledClock(scale)).toThrow(
      expect.objectContaining({ name: 'DeliveryEngineError', code: 'invalid_option' }),
    );
  });
});
