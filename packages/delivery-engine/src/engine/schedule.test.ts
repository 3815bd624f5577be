import { WEBHOOK_MAX_ATTEMPTS, WEBHOOK_RETRY_DELAYS_MS } from '@kyc/contracts';
import { describe, expect, it } from 'vitest';
import { DeliveryEngineError } from '../delivery-engine-error.js';
import { planNextAttempt } from './schedule.js';

describe('planNextAttempt', () => {
  it('retries after 1, 5 and 15 minutes and fails after the last attempt', () => {
    const now = 1_000_000;
    WEBHOOK_RETRY_DELAYS_MS.forEach((delay, index) => {
      expect(planNextAttempt('server_error', index + 1, now)).toEqual({
        state: 'pending',
        nextAttemptAt: now + delay,
        finishedAt: now,
      });
    });
    expect(planNextAttempt('timeout', WEBHOOK_MAX_ATTEMPTS, now)).toEqual({
      state: 'failed',
      nextAttemptAt: undefined,
      finishedAt: now,
    });
  });

  it('counts only the outcome delivered as success', () => {
    expect(planNextAttempt('delivered', 3, 5).state).toBe('delivered');
    for (const outcome of ['unexpected_2xx', 'redirect', 'client_error', 'worker_lost', 'blocked_address']) {
      expect(planNextAttempt(outcome, 1, 5).state).toBe('pending');
    }
  });

  it('adds jitter only on top of the delay, within the fraction', () => {
    const [first] = WEBHOOK_RETRY_DELAYS_MS;
    expect(planNextAttempt('server_error', 1, 0, { jitter: 0.2, random: () => 0 }).nextAttemptAt).toBe(first);
    expect(planNextAttempt('server_error', 1, 0, { jitter: 0.2, random: () => 0.999999 }).nextAttemptAt).toBe(
      Math.floor(first + first * 0.2 * 0.999999),
    );
    expect(planNextAttempt('server_error', 1, 0, { jitter: 5, random: () => 2 }).nextAttemptAt).toBe(first * 2);
  });

  it('refuses an attempt number or time that is not one, with a typed error', () => {
    for (const [attempt, at] of [
      [0, 5],
      [1.5, 5],
      [Number.NaN, 5],
      [1, Number.NaN],
    ] as const) {
      expect(() => planNextAttempt('server_error', attempt, at)).toThrow(DeliveryEngineError);
    }
  });
});
