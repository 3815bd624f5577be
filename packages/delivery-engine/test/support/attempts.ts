import { sampleStatusWebhook } from '@kyc/contracts';
import type { AttemptEvent } from '../../src/index.js';

/** Collects `onAttempt` events and lets a test wait for the n-th one. */
export function recordAttempts(): {
  readonly onAttempt: (event: AttemptEvent) => void;
  readonly events: AttemptEvent[];
  waitFor(n: number, timeoutMs?: number): Promise<void>;
} {
  const events: AttemptEvent[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  return {
    events,
    onAttempt(event) {
      events.push(event);
      for (const waiter of waiters.filter((w) => events.length >= w.n)) waiter.resolve();
    },
    waitFor(n, timeoutMs = 15_000) {
      if (events.length >= n) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`expected ${n} attempts, saw ${events.length} within ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
  };
}

/** A valid status-shaped body for session `sessionId`. */
export function bodyFor(sessionId: string): string {
  return JSON.stringify({ ...sampleStatusWebhook, sessionId });
}

/** Resolves after `ms` of real time. */
export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
