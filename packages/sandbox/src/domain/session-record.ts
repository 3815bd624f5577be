import type { SessionState } from '@kyc/contracts';
import type { SessionOutcome } from './outcome.js';

/** A sandbox session as the store keeps it. Times are epoch milliseconds. */
export interface SessionRecord {
  readonly id: string;
  readonly companyId: number;
  readonly shortKey: string;
  readonly state: SessionState;
  readonly outcome: SessionOutcome;
  readonly startedAt: number;
  readonly endedAt: number | undefined;
}
