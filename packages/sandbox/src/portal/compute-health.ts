import { type Diagnosis, diagnoseAttempt } from '../check/diagnose-attempt.js';
import type { PortalAttemptRow } from './portal-store.js';

const HOUR_MS = 3_600_000;
/** The window the health page covers. */
export const HEALTH_HOURS = 24;

/** One hour of attempts by outcome. */
export interface HealthHour {
  /** Start of the hour (ISO 8601, UTC). */
  readonly start: string;
  readonly delivered: number;
  readonly failed: number;
  /** Failed attempts by outcome (`server_error`, `timeout`, …). */
  readonly byOutcome: Readonly<Record<string, number>>;
}

/** A failed attempt with what to fix. */
export interface HealthFailure {
  readonly eventId: string;
  readonly attempt: number;
  readonly at: string;
  readonly outcome: string;
  readonly status: number | null;
  readonly error: string | null;
  readonly diagnosis: Diagnosis | null;
}

/** The attempt statistics of the health page over the last {@link HEALTH_HOURS} hours. */
export interface AttemptHealth {
  readonly from: string;
  readonly to: string;
  readonly hours: readonly HealthHour[];
  readonly attempts: number;
  readonly delivered: number;
  /** Delivered attempts ÷ attempts, 0–1; `null` without attempts. */
  readonly successRate: number | null;
  readonly latencyMs: { readonly p50: number | null; readonly p95: number | null };
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return Math.round(sorted[rank - 1] ?? 0);
}

/** A failed attempt as the health page and API show it. */
export function failureView(row: PortalAttemptRow): HealthFailure {
  return {
    eventId: row.eventId,
    attempt: row.attempt,
    at: new Date(row.at).toISOString(),
    outcome: row.outcome,
    status: row.status ?? null,
    error: row.error ?? null,
    diagnosis: diagnoseAttempt({ outcome: row.outcome, status: row.status }) ?? null,
  };
}

/**
 * Buckets the attempts of the last 24 hours by hour and outcome, with the success rate and
 * the p50/p95 latency. `now` is the wall clock; the last bucket is the hour in progress.
 */
export function computeHealth(attempts: readonly PortalAttemptRow[], now: number): AttemptHealth {
  const lastHour = Math.floor(now / HOUR_MS) * HOUR_MS;
  const first = lastHour - (HEALTH_HOURS - 1) * HOUR_MS;
  const buckets = Array.from({ length: HEALTH_HOURS }, (_, i) => ({
    start: first + i * HOUR_MS,
    delivered: 0,
    failed: 0,
    byOutcome: {} as Record<string, number>,
  }));
  const latencies: number[] = [];
  let delivered = 0;
  let counted = 0;
  for (const attempt of attempts) {
    const index = Math.floor((attempt.at - first) / HOUR_MS);
    const bucket = buckets[index];
    if (!bucket) continue;
    counted++;
    latencies.push(attempt.latencyMs);
    if (attempt.outcome === 'delivered') {
      bucket.delivered++;
      delivered++;
    } else {
      bucket.failed++;
      bucket.byOutcome[attempt.outcome] = (bucket.byOutcome[attempt.outcome] ?? 0) + 1;
    }
  }
  latencies.sort((a, b) => a - b);
  return {
    from: new Date(first).toISOString(),
    to: new Date(now).toISOString(),
    hours: buckets.map((b) => ({ ...b, start: new Date(b.start).toISOString() })),
    attempts: counted,
    delivered,
    successRate: counted === 0 ? null : delivered / counted,
    latencyMs: { p50: percentile(latencies, 50), p95: percentile(latencies, 95) },
  };
}
