import type { AttemptEvent, ScaledClock } from '@kyc/delivery-engine';
import type { ListenerHub } from '../listen/listener-hub.js';
import type { SandboxLogger } from '../sandbox-options.js';
import type { SandboxStore } from '../store/sandbox-store.js';

/** What the sandbox does with each attempt the engine records. */
export interface AttemptRecorderParts {
  readonly store: SandboxStore;
  readonly clock: ScaledClock;
  readonly hub: ListenerHub;
  readonly logger: SandboxLogger | undefined;
  /** Tells the company's open portal pages (live rows). */
  readonly notify: (companyId: number) => void;
}

/**
 * The engine's `onAttempt` hook for the sandbox: the portal's projection (times on the wall
 * clock), the company's live pages, a connected `kyc-sandbox listen`, and one log line (the
 * endpoint's origin only: a webhook URL's path or query may carry a customer's token).
 */
export function attemptRecorder({ store, clock, hub, logger, notify }: AttemptRecorderParts) {
  return ({ deliveryId, url, attempt, state, nextAttemptAt, traceParent }: AttemptEvent): void => {
    const companyId = store.portal.recordAttempt(
      {
        eventId: deliveryId,
        attempt: attempt.attempt,
        at: clock.toWall(attempt.startedAt),
        outcome: attempt.outcome,
        status: attempt.status,
        latencyMs: attempt.latencyMs,
        error: attempt.errorMessage,
      },
      state,
      nextAttemptAt === undefined ? undefined : clock.toWall(nextAttemptAt),
      Date.now(),
    );
    if (companyId !== undefined) notify(companyId);
    hub.recorded(
      deliveryId,
      attempt.attempt,
      { outcome: attempt.outcome, status: attempt.status, state },
      nextAttemptAt === undefined ? undefined : clock.toWall(nextAttemptAt),
    );
    const status = attempt.status === undefined ? '' : ` ${attempt.status}`;
    // The origin only: a webhook URL's path or query may carry a customer's token.
    const origin = new URL(url).origin;
    logger?.info?.(
      `webhook ${deliveryId} → ${origin}: attempt #${attempt.attempt} ${attempt.outcome}${status}, ${state}`,
      {
        event: 'webhook.attempt',
        deliveryId,
        origin,
        attempt: attempt.attempt,
        outcome: attempt.outcome,
        ...(attempt.status !== undefined && { status: attempt.status }),
        latencyMs: attempt.latencyMs,
        state,
        ...(traceParent !== undefined && { traceParent }),
      },
    );
  };
}
