import { describe, expect, it } from 'vitest';
import { createDeliveryEngine, sqliteDeliveryStore } from '../src/index.js';
import { bodyFor, pause } from './support/attempts.js';
import { loopbackOptions, startReceiver } from './support/receiver.js';
import { createTestTelemetry, pointValue } from './support/telemetry.js';

describe('lane gauges', () => {
  it('show the slots endpoints that hang hold in the slow lane, why, and for how long, with bounded labels only', async () => {
    const telemetry = createTestTelemetry();
    const dead = await startReceiver(() => 'hang');
    const late = await startReceiver(() => ({ status: 200, delayMs: 400 }));
    const live = await startReceiver(() => 200);
    const engine = createDeliveryEngine({
      store: sqliteDeliveryStore({ path: ':memory:' }),
      ...(await loopbackOptions()),
      telemetry: { tracerProvider: telemetry.tracerProvider, meterProvider: telemetry.meterProvider },
    });
    try {
      await engine.start();
      for (let i = 0; i < 6; i++) await engine.enqueue({ url: dead.url, body: bodyFor(`dead-${i}`) });
      await engine.enqueue({ url: late.url, body: bodyFor('late') });
      await engine.enqueue({ url: live.url, body: bodyFor('live') });
      await late.waitFor(1);
      await pause(800);
      const inUse = await telemetry.points('kyc.webhook.slots.in_use');
      expect(pointValue(inUse, { 'kyc.lane': 'slow' })).toBe(4);
      expect(pointValue(inUse, { 'kyc.lane': 'prompt' })).toBe(0);
      const limit = await telemetry.points('kyc.webhook.slots.limit');
      expect(pointValue(limit, { 'kyc.lane': 'prompt' })).toBe(16);
      expect(pointValue(limit, { 'kyc.lane': 'slow' })).toBe(1024);
      const slow = await telemetry.points('kyc.webhook.slow_endpoints');
      expect(pointValue(slow, { 'kyc.slow.reason': 'no_answer' })).toBe(1);
      expect(pointValue(slow, { 'kyc.slow.reason': 'slow_answer' })).toBe(1);
      const [age] = await telemetry.points('kyc.webhook.slow_lane.oldest_attempt.age');
      expect(age?.value).toBeGreaterThan(0.5);
      // Which endpoint is slow is loopHealth's to say, never a label's.
      const labels = [...inUse, ...limit, ...slow].flatMap((p) => Object.values(p.attributes).map(String));
      expect(labels.some((value) => value.includes('127.0.0.1'))).toBe(false);
      expect(engine.loopHealth().lanes.slowOrigins.map((o) => [o.origin, o.reason, o.inFlight])).toEqual([
        [dead.origin, 'no_answer', 4],
        [late.origin, 'slow_answer', 0],
      ]);
      expect(live.requests).toHaveLength(1);
    } finally {
      await engine.stop({ graceMs: 0 });
      await Promise.all([dead.close(), late.close(), live.close()]);
      await telemetry.shutdown();
    }
  });
});
