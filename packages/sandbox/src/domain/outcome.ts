import {
  calendarDateSchema,
  ipAddressSchema,
  scoreSchema,
  type VerificationStatus,
  validationMethodSchema,
  verificationStatusSchema,
  webhookScoresSchema,
} from '@kyc/contracts';
import * as z from 'zod';
import { PAYLOAD_SHAPES, STATUS, VALIDATION } from './enum-values.js';

/**
 * The result a sandbox session will end with, chosen when it is created
 * (`POST /sandbox/sessions`). Every field is optional; defaults follow the status.
 */
export const outcomeRequestSchema = z.strictObject({
  shape: z.enum(PAYLOAD_SHAPES).optional(),
  status: verificationStatusSchema.optional(),
  scores: webhookScoresSchema.optional(),
  validation: validationMethodSchema.optional(),
  confidenceScore: scoreSchema.optional(),
  userData: z
    .strictObject({
      name: z.string().min(1).max(200),
      documentNumber: z.string().min(1).max(64),
      dateOfBirth: calendarDateSchema,
      nationality: z.string().min(2).max(3),
    })
    .optional(),
  ipAddress: ipAddressSchema.optional(),
});
export type OutcomeRequest = z.infer<typeof outcomeRequestSchema>;

/** A fully specified outcome, as stored with the session. */
export interface SessionOutcome {
  readonly shape: (typeof PAYLOAD_SHAPES)[number];
  readonly status: VerificationStatus;
  readonly scores: { document: number; liveness: number; oneToOne: number; total: number };
  readonly validation: z.infer<typeof validationMethodSchema>;
  readonly confidenceScore: number;
  readonly userData: { name: string; documentNumber: string; dateOfBirth: string; nationality: string };
  readonly ipAddress: string;
}

const DEFAULT_SCORES: Readonly<Record<VerificationStatus, SessionOutcome['scores']>> = {
  [STATUS.APPROVED]: { document: 98.2, liveness: 96.4, oneToOne: 91.7, total: 95.4 },
  [STATUS.REJECTED]: { document: 41.5, liveness: 88.1, oneToOne: 12.3, total: 33.9 },
  [STATUS.PENDING]: { document: 72.4, liveness: 90.2, oneToOne: 64.8, total: 69.8 },
  [STATUS.ERROR]: { document: 0, liveness: 0, oneToOne: 0, total: 0 },
};

/** Fills every field the request left out. */
export function resolveOutcome(request: OutcomeRequest): SessionOutcome {
  const status = request.status ?? STATUS.APPROVED;
  const scores = request.scores ?? DEFAULT_SCORES[status];
  return {
    shape: request.shape ?? 'both',
    status,
    scores: { document: scores.document, liveness: scores.liveness, oneToOne: scores.oneToOne, total: scores.total },
    validation: request.validation ?? (status === STATUS.PENDING ? VALIDATION.MANUAL : VALIDATION.AUTOMATIC),
    confidenceScore: request.confidenceScore ?? scores.total,
    userData: request.userData ?? {
      name: 'Alex Sandbox',
      documentNumber: 'X0000000T',
      dateOfBirth: '1990-04-01',
      nationality: 'ES',
    },
    // TEST-NET-3 (RFC 5737): a documentation address, never a real user's.
    ipAddress: request.ipAddress ?? '203.0.113.10',
  };
}
