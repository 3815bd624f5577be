import { describe, expect, it } from 'vitest';
import { createDeliveryEngine, sqliteDeliveryStore } from '../src/index.js';
import { bodyFor, recordAttempts } from './support/attempts.js';
import { loopbackOptions, startReceiver } from './support/receiver.js';

describe('endpoint isolation', () => {
  it('a dead endpoint holds at most its own slots and never delays another endpoint', { timeout: 60_000 }, async () => {
    const dead = await startReceiver(() => 'hang');
    const live = await startReceiver(() => 200);
    const attempts = recordAttempts();
    const engine = createDeliveryEngine({
      store: sqliteDeliveryStore({ path: ':memory:' }),
      ...(await loopbackOptions()),
      concurrency: 6,
      perEndpointConcurrency: 2,
      // Far longer than the test needs: every dead attempt is still hanging at the end.
      deadlineMs: 25_000,
      onAttempt: attempts.onAttempt,
    });
    try {
      await engine.start();
      // The dead endpoint's events are older, so a FIFO queue without isolation would send them first.
      for (let i = 0; i < 40; i++) await engine.enqueue({ url: dead.url, body: bodyFor(`dead-${i}`) });
      await dead.waitFor(2);
      for (let i = 0; i < 40; i++) await engine.enqueue({ url: live.url, body: bodyFor(`live-${i}`) });
      await attempts.waitFor(40);

      expect(attempts.events.every((e) => e.url === live.url && e.state === 'delivered')).toBe(true);
      expect(live.requests).toHaveLength(40);
      // The dead endpoint got exactly its per-endpoint share, still unanswered.
      expect(dead.requests).toHaveLength(2);
      expect(await engine.listDeliveries({ url: dead.url, state: 'pending', limit: 1000 })).toHaveLength(40);
    } finally {
      await engine.stop({ graceMs: 0 });
      await dead.close();
      await live.close();
    }
  });
});
