import { WEBHOOK_MAX_ATTEMPTS, WEBHOOK_RETRY_DELAYS_MS } from '@kyc/contracts';
import type { DeliveryRecord } from '@kyc/delivery-engine';
import type { Receipt } from './chaos-receiver.js';
import type { Invariants } from './scenario.js';

// A reset in the middle of the body still sent its status line.
const statusOf = (answer: Receipt['answer']) => (answer === 'reset_mid_body' ? 200 : answer);

/** The wall-clock life of a worker that was killed: receipts inside it may be unrecorded attempts. */
export interface KillWindow {
  readonly from: number;
  readonly to: number;
  /** The loopback address of the worker, when workers are told apart; none: every worker (a database outage). */
  readonly address?: string;
}

export interface AuditInput {
  /** Every delivery in the store (read back after the last restart). */
  readonly records: readonly DeliveryRecord[];
  /** Ids whose `enqueue` resolved: each must be in `records`. */
  readonly acked: ReadonlySet<string>;
  readonly receipts: readonly Receipt[];
  readonly handlerRuns: ReadonlyMap<string, number>;
  readonly killWindows: readonly KillWindow[];
  /** Engine-clock milliseconds per wall millisecond (the schedule is checked on the engine clock). */
  readonly timeScale: number;
  /** Deliveries to the endpoint that always answers 500. */
  readonly alwaysFailing: (record: DeliveryRecord) => boolean;
  /** Attribute receipts to workers by the address they arrived on (multi-worker runs). */
  readonly byAddress?: boolean;
}

/**
 * The invariants every delivery scenario checks after the last restart: nothing lost, every
 * delivery finished (delivered with one recorded 200, or failed after exactly four attempts),
 * the retry schedule never advanced, the attempt log agreeing with what the receiver saw, the
 * customer's handler run at most once per event (exactly once when delivered), and every
 * receipt the log does not hold sent by a worker that was killed while it was in flight.
 */
export function auditDeliveries(input: AuditInput, invariants: Invariants) {
  const byId = new Map(input.records.map((record) => [record.id, record]));
  const receiptsOf = new Map<string, Receipt[]>();
  for (const receipt of input.receipts) {
    const list = receiptsOf.get(receipt.id) ?? [];
    list.push(receipt);
    receiptsOf.set(receipt.id, list);
  }
  const tolerance = 5 * input.timeScale;
  let delivered = 0;
  let failed = 0;
  const unrecorded: Receipt[] = [];
  // Failed from the sender's view, yet the customer's handler ran: what `failed` can hide.
  const failedAfterRun = new Map<string, number>();
  let maxLateMs = 0;
  for (const id of input.acked) {
    invariants.check(byId.has(id), 'lost: enqueue resolved but the event is not in the store', () => id);
  }
  for (const record of input.records) {
    const log = [...record.attemptLog].sort((a, b) => a.attempt - b.attempt);
    const runs = input.handlerRuns.get(record.id) ?? 0;
    invariants.check(runs <= 1, 'handler ran more than once for one event', () => `${record.id} ran ${runs}×`);
    invariants.check(
      record.state === 'delivered' || record.state === 'failed',
      'not finished after the last restart',
      () => `${record.id} is ${record.state}`,
    );
    invariants.check(
      log.every((a, i) => a.attempt === i + 1) && record.attempts === log.length,
      'attempt log numbers not contiguous',
      () => `${record.id}: ${log.map((a) => a.attempt).join(',')} (attempts=${record.attempts})`,
    );
    const successes = log.filter((a) => a.outcome === 'delivered');
    if (record.state === 'delivered') {
      delivered++;
      invariants.check(
        successes.length === 1 && log.at(-1)?.outcome === 'delivered',
        'delivered without exactly one final 200 in the log',
        () => `${record.id}: ${log.map((a) => a.outcome).join(',')}`,
      );
      invariants.check(runs === 1, 'delivered but the handler did not run', () => record.id);
    }
    if (record.state === 'failed') {
      failed++;
      if (runs > 0) {
        const last = log.at(-1)?.outcome ?? 'none';
        failedAfterRun.set(last, (failedAfterRun.get(last) ?? 0) + 1);
      }
      invariants.check(
        log.length === WEBHOOK_MAX_ATTEMPTS && successes.length === 0,
        `failed without exactly ${WEBHOOK_MAX_ATTEMPTS} unsuccessful attempts`,
        () => `${record.id}: ${log.map((a) => a.outcome).join(',')}`,
      );
      if (input.alwaysFailing(record)) {
        invariants.check(
          log.every((a) => ['server_error', 'timeout', 'worker_lost'].includes(a.outcome)),
          'an always-500 endpoint logged another outcome',
          () => `${record.id}: ${log.map((a) => a.outcome).join(',')}`,
        );
      }
    }
    if (input.alwaysFailing(record)) {
      invariants.check(record.state === 'failed', 'an always-500 endpoint ended delivered', () => record.id);
    }
    for (let k = 1; k < log.length; k++) {
      const gap = (log[k]?.startedAt ?? 0) - (log[k - 1]?.startedAt ?? 0);
      const delay = WEBHOOK_RETRY_DELAYS_MS[k - 1] ?? 0;
      invariants.check(
        gap >= delay - tolerance,
        'retry sent before its schedule',
        () => `${record.id} attempt ${k + 1}: ${gap} ms after attempt ${k}, schedule ${delay} ms`,
      );
      maxLateMs = Math.max(maxLateMs, (gap - delay) / input.timeScale);
    }
    // The attempt log against the wire: every status it records was answered to that attempt,
    // and every receipt it lacks came from a worker killed while the attempt was in flight.
    const receipts = receiptsOf.get(record.id) ?? [];
    for (const attempt of log) {
      const same = receipts.filter((r) => r.attempt === attempt.attempt);
      if (attempt.status !== undefined) {
        invariants.check(
          same.some((r) => statusOf(r.answer) === attempt.status),
          'the log records a status the receiver never answered',
          () => `${record.id} attempt ${attempt.attempt}: ${attempt.status}`,
        );
      }
    }
    const attemptsSeen = new Set(receipts.map((r) => r.attempt));
    for (const number of attemptsSeen) {
      const same = receipts.filter((r) => r.attempt === number);
      const extra = same.length - (log.some((a) => a.attempt === number) ? 1 : 0);
      if (extra <= 0) continue;
      const inKill = same.filter((r) =>
        input.killWindows.some(
          (w) =>
            r.at >= w.from &&
            r.at <= w.to &&
            (!input.byAddress || w.address === undefined || w.address === r.localAddress),
        ),
      ).length;
      invariants.check(
        inKill >= extra,
        'a receipt the log lacks was not in flight at a kill',
        () => `${record.id} attempt ${number}: ${same.length} receipts, ${inKill} during kills`,
      );
      // The earliest receipts are the unrecorded ones: the recorded attempt is the last send.
      unrecorded.push(...same.slice(0, extra));
    }
  }
  for (const id of receiptsOf.keys()) {
    invariants.check(byId.has(id), 'the receiver saw an event the store does not hold', () => id);
  }
  const failedAfterRunCount = [...failedAfterRun.values()].reduce((a, b) => a + b, 0);
  return {
    delivered,
    failed,
    unrecorded,
    maxLateMs: Math.round(maxLateMs),
    /** `0`, or `n (last attempt: timeout 3, …)`: failed events whose handler had run. */
    failedAfterRun:
      failedAfterRunCount === 0
        ? '0'
        : `${failedAfterRunCount} (last attempt: ${[...failedAfterRun].map(([o, n]) => `${o} ${n}`).join(', ')})`,
  };
}
