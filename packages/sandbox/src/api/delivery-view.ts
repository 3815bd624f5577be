import type { ScaledClock } from '@kyc/delivery-engine';
import type { SessionDelivery } from '../sandbox-service.js';

/** One attempt as the sandbox API and dashboard show it. */
export interface AttemptView {
  readonly attempt: number;
  readonly round: number;
  readonly at: string;
  readonly outcome: string;
  readonly status: number | null;
  readonly latencyMs: number;
  readonly responseSnippet: string | null;
  readonly error: string | null;
  /** Sends before this attempt whose result was never recorded: each may have reached the endpoint. */
  readonly unrecordedSends: number;
}

/** A session's webhook delivery as the sandbox API and dashboard show it. */
export interface DeliveryView {
  readonly eventId: string;
  readonly sessionId: string;
  /** `pending`, `delivered`, `failed`, or `not_sent` when the event never reached the engine. */
  readonly state: string;
  readonly url: string | null;
  readonly note: string | null;
  readonly nextAttemptAt: string | null;
  readonly attempts: readonly AttemptView[];
}

const iso = (clock: ScaledClock, ms: number) => new Date(clock.toWall(ms)).toISOString();

/** Times are shown on the wall clock even when the engine runs on a compressed schedule. */
export function deliveryView(clock: ScaledClock, { outbox, delivery }: SessionDelivery): DeliveryView {
  return {
    eventId: outbox.eventId,
    sessionId: outbox.sessionId,
    state: delivery?.state ?? 'not_sent',
    url: outbox.url ?? null,
    note: outbox.relayError ?? (outbox.relayedAt === undefined ? 'waiting for the outbox relay' : null),
    nextAttemptAt: delivery?.nextAttemptAt === undefined ? null : iso(clock, delivery.nextAttemptAt),
    attempts: (delivery?.attemptLog ?? []).map((attempt) => ({
      attempt: attempt.attempt,
      round: attempt.round,
      at: iso(clock, attempt.startedAt),
      outcome: attempt.outcome,
      status: attempt.status ?? null,
      latencyMs: attempt.latencyMs,
      responseSnippet: attempt.responseSnippet ?? null,
      error: attempt.errorMessage ?? null,
      unrecordedSends: attempt.unrecordedSends,
    })),
  };
}
