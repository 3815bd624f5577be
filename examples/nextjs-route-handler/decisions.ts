import type { KycDecision } from '@kyc/example-actions';

/** Stand-in for your database or job queue. */
export const decisions: KycDecision[] = [];

export function recordDecision(decision: KycDecision): void {
  decisions.push(decision);
}
