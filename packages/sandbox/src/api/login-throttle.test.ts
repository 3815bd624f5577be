import { describe, expect, it } from 'vitest';
import { LoginThrottle } from './login-throttle.js';

describe('LoginThrottle', () => {
  it('blocks a username after the allowed failures until the window ends', () => {
    const throttle = new LoginThrottle(3, 10_000);
    for (let i = 0; i < 2; i++) throttle.fail('alice', 1000);
    expect(throttle.retryAfterSeconds('alice', 1000)).toBeUndefined();
    throttle.fail('alice', 1000);
    expect(throttle.retryAfterSeconds('alice', 1000)).toBe(10);
    expect(throttle.retryAfterSeconds('alice', 6000)).toBe(5);
    expect(throttle.retryAfterSeconds('bob', 1000)).toBeUndefined();
    expect(throttle.retryAfterSeconds('alice', 11_000)).toBeUndefined();
  });

  it('forgets failures after a success', () => {
    const throttle = new LoginThrottle(2, 10_000);
    throttle.fail('alice', 0);
    throttle.succeed('alice');
    throttle.fail('alice', 0);
    expect(throttle.retryAfterSeconds('alice', 0)).toBeUndefined();
  });

  it('stays bounded in memory', () => {
    const throttle = new LoginThrottle(2, 10_000, 100);
    for (let i = 0; i < 1000; i++) throttle.fail(`user${i}`, 0);
    throttle.fail('last', 0);
    throttle.fail('last', 0);
    expect(throttle.retryAfterSeconds('last', 0)).toBe(10);
  });
});
