import { SUGGESTED_ACTIONS } from '@kyc/contracts';
import type { KycWebhookEvent } from '@kyc/webhook-receiver';

/** What your system does next, one per status (spec §3), plus a review for v1 bodies. */
export type KycAction = 'activate-account' | 'request-retry' | 'notify-compliance' | 'allow-retry' | 'review-scores';

const ACTION_BY_STATUS = {
  APPROVED: 'activate-account',
  REJECTED: 'request-retry',
  PENDING: 'notify-compliance',
  ERROR: 'allow-retry',
} as const satisfies Record<keyof typeof SUGGESTED_ACTIONS, KycAction>;

/** One decision taken for one event: stand-in for your database write or job enqueue. */
export interface KycDecision {
  readonly sessionId: string;
  readonly action: KycAction;
  readonly reason: string;
}

/**
 * Decides what to do with a completion event. A v1 body carries scores but no status: it goes
 * to a review (or, in production, to `client.getSessionByDetailsUrl` to read the status).
 */
export function decide(event: KycWebhookEvent): KycDecision {
  if (event.shape === 'v1' || event.status === undefined) {
    const total = event.shape === 'status' ? undefined : event.scores?.total;
    return { sessionId: event.sessionId, action: 'review-scores', reason: `total score ${total ?? 'unknown'}` };
  }
  return {
    sessionId: event.sessionId,
    action: ACTION_BY_STATUS[event.status],
    reason: SUGGESTED_ACTIONS[event.status],
  };
}
