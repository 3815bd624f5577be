import type { LanesSnapshot } from '@kyc/delivery-engine';
import type { SandboxStore } from '../store/sandbox-store.js';
import { computeHealth, failureView } from './compute-health.js';
import { endpointPace } from './endpoint-pace.js';
import type { EndpointHealth } from './portal-views.js';

/** Reads a little more than the 24 h window so the oldest hour's bucket is complete. */
const WINDOW_MS = 25 * 3_600_000;

/**
 * The Endpoint health page of one company: attempts per hour over 24 h with the success rate
 * and latency, the last failures with what to fix, the retry queue, and the configuration.
 */
export function endpointHealth(
  store: SandboxStore,
  companyId: number,
  now: number,
  engine: { readonly lanes: LanesSnapshot | undefined; readonly deadlineMs: number },
): EndpointHealth {
  const company = store.getCompany(companyId);
  const attempts = computeHealth(store.portal.attemptsSince(companyId, now - WINDOW_MS), now);
  const failures = store.portal.lastFailures(companyId, 5).map(failureView);
  const retry = store.portal.retryState(companyId);
  const waiting: Record<string, number> = {};
  let pending = 0;
  for (const [made, count] of Object.entries(retry.byAttempts)) {
    waiting[made] = count;
    pending += count;
  }
  return {
    ...attempts,
    endpoint: { url: company?.webhookUrl ?? null, hasAuthKey: company?.authKey !== undefined },
    pace: endpointPace(company?.webhookUrl, engine.lanes, engine.deadlineMs),
    lastError: failures[0] ?? null,
    lastFailures: failures,
    retries: {
      waiting,
      pending,
      nextAttemptAt: retry.nextAttemptAt === undefined ? null : new Date(retry.nextAttemptAt).toISOString(),
      schedule: 'Attempt 1 at once, then 1 min, 5 min and 15 min after each failure; failed after the fourth.',
    },
    circuit: {
      state: 'none',
      message:
        'The engine has no circuit breaker and never disables an endpoint: every delivery gets its four attempts. An endpoint that hangs holds slots only in the slow lane, which slow endpoints share among themselves; the others keep theirs.',
    },
  };
}
