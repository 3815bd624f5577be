import type { Meter } from '@opentelemetry/api';
import type { LanesSnapshot, SlowReason } from '../engine/attempt-slots.js';

const REASONS: readonly SlowReason[] = ['no_answer', 'timeout', 'slow_answer'];

/**
 * The lanes as gauges, read from `snapshot` at each collection (no store call): attempts in flight
 * and capacity per lane (`kyc.lane`), the endpoints counted slow by why (`kyc.slow.reason`), and
 * how long the slow lane's oldest attempt has held its slot. Every attribute is from a fixed set:
 * which endpoints are slow is `loopHealth().lanes.slowOrigins`'s business, never a label's.
 * Returns the unregister function.
 */
export function observeLanes(meter: Meter, snapshot: () => LanesSnapshot): () => void {
  const inUse = meter.createObservableGauge('kyc.webhook.slots.in_use', {
    description:
      'Attempts in flight by lane: prompt (endpoints that answer) or slow (endpoints that hang or answer late)',
    unit: '{attempt}',
  });
  const limit = meter.createObservableGauge('kyc.webhook.slots.limit', {
    description: 'Attempts each lane holds at most (concurrency, slowConcurrency)',
    unit: '{attempt}',
  });
  const slowOrigins = meter.createObservableGauge('kyc.webhook.slow_endpoints', {
    description: 'Endpoint origins that count as slow now, by why: no answer yet, a timeout, a late answer',
    unit: '{endpoint}',
  });
  const oldest = meter.createObservableGauge('kyc.webhook.slow_lane.oldest_attempt.age', {
    description: 'How long the oldest attempt in the slow lane has held its slot (0 when the lane is empty)',
    unit: 's',
  });
  const gauges = [inUse, limit, slowOrigins, oldest];
  const callback = (observer: Parameters<Parameters<Meter['addBatchObservableCallback']>[0]>[0]) => {
    const lanes = snapshot();
    observer.observe(inUse, lanes.prompt.inFlight, { 'kyc.lane': 'prompt' });
    observer.observe(inUse, lanes.slow.inFlight, { 'kyc.lane': 'slow' });
    observer.observe(limit, lanes.prompt.capacity, { 'kyc.lane': 'prompt' });
    observer.observe(limit, lanes.slow.capacity, { 'kyc.lane': 'slow' });
    for (const reason of REASONS) {
      observer.observe(slowOrigins, lanes.slowOriginsByReason[reason], { 'kyc.slow.reason': reason });
    }
    observer.observe(oldest, lanes.slow.oldestAttemptMs / 1000);
  };
  meter.addBatchObservableCallback(callback, gauges);
  return () => meter.removeBatchObservableCallback(callback, gauges);
}
