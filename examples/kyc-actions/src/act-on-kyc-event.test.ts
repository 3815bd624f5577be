import { SUGGESTED_ACTIONS, sampleCombinedWebhook, sampleStatusWebhook, sampleV1Webhook } from '@kyc/contracts';
import { parseWebhook } from '@kyc/webhook-receiver';
import { describe, expect, it } from 'vitest';
import { decide } from './act-on-kyc-event.js';

const statusEvent = (status: string, body: object = sampleStatusWebhook) =>
  parseWebhook(JSON.stringify({ ...structuredClone(body), status }));

describe('decide', () => {
  it.each([
    ['APPROVED', 'activate-account'],
    ['REJECTED', 'request-retry'],
    ['PENDING', 'notify-compliance'],
    ['ERROR', 'allow-retry'],
  ] as const)('takes the specification’s action for %s', (status, action) => {
    for (const body of [sampleStatusWebhook, sampleCombinedWebhook]) {
      expect(decide(statusEvent(status, body))).toEqual({
        sessionId: sampleStatusWebhook.sessionId,
        action,
        reason: SUGGESTED_ACTIONS[status],
      });
    }
  });

  it('sends a v1 body (no status) to a review by its total score', () => {
    expect(decide(parseWebhook(JSON.stringify(sampleV1Webhook)))).toEqual({
      sessionId: sampleV1Webhook.id,
      action: 'review-scores',
      reason: `total score ${sampleV1Webhook.scores.total}`,
    });
  });

  it('decides nothing final for a status it cannot read', () => {
    const decision = decide(statusEvent('MAYBE'));
    expect(decision.action).toBe('review-scores');
  });
});
