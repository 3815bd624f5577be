import {
  SESSION_COMPLETED_EVENT,
  type SessionDetails,
  sessionDetailsSchema,
  sessionDetailsUrl,
  type WebhookBody,
  webhookCombinedSchema,
  webhookStatusSchema,
  webhookV1Schema,
} from '@kyc/contracts';
import { STATE } from './enum-values.js';
import type { SessionRecord } from './session-record.js';

/** `"250ms"` under a second, whole seconds above: the duration forms the contracts accept. */
export function formatDuration(ms: number): string {
  const safe = Math.max(0, Math.round(ms));
  return safe < 1000 ? `${safe}ms` : `${Math.round(safe / 1000)}s`;
}

function v1Group(session: SessionRecord, endedAt: number, baseUrl: string) {
  return {
    id: session.id,
    shortKey: session.shortKey,
    startedAt: new Date(session.startedAt).toISOString(),
    endedAt: new Date(endedAt).toISOString(),
    duration: formatDuration(endedAt - session.startedAt),
    detailsURL: sessionDetailsUrl(baseUrl, session.id),
    scores: { ...session.outcome.scores },
    validation: session.outcome.validation,
  };
}

function statusGroup(session: SessionRecord, endedAt: number) {
  const { outcome } = session;
  const check = (score: number) => ({ passed: score >= 50, score });
  return {
    event: SESSION_COMPLETED_EVENT,
    timestamp: new Date(endedAt).toISOString(),
    sessionId: session.id,
    status: outcome.status,
    confidenceScore: outcome.confidenceScore,
    userData: { ...outcome.userData },
    validationResults: {
      documentAuthenticity: check(outcome.scores.document),
      facialMatch: check(outcome.scores.oneToOne),
      livenessDetection: check(outcome.scores.liveness),
    },
    metadata: {
      ipAddress: outcome.ipAddress,
      geolocation: { country: outcome.userData.nationality },
      device: { type: 'desktop', sdkVersion: 'kyc-sandbox' },
    },
  };
}

/**
 * The webhook body of a finished session in the shape its outcome asks for. Each body is
 * parsed with the strict wire schema of `@kyc/contracts` before it is queued, so the sandbox
 * can never send what the contract does not allow.
 */
export function buildWebhookBody(session: SessionRecord, endedAt: number, baseUrl: string): WebhookBody {
  switch (session.outcome.shape) {
    case 'v1':
      return webhookV1Schema.parse(v1Group(session, endedAt, baseUrl));
    case 'status':
      return webhookStatusSchema.parse(statusGroup(session, endedAt));
    case 'both':
      return webhookCombinedSchema.parse({ ...v1Group(session, endedAt, baseUrl), ...statusGroup(session, endedAt) });
  }
}

/** The API's view of a session: the v1 fields known so far plus `state` and, once finished, `status`. */
export function sessionDetails(session: SessionRecord, baseUrl: string): SessionDetails {
  const base = {
    id: session.id,
    shortKey: session.shortKey,
    state: session.state,
    startedAt: new Date(session.startedAt).toISOString(),
    detailsURL: sessionDetailsUrl(baseUrl, session.id),
  };
  if (session.state !== STATE.FINISHED || session.endedAt === undefined) return sessionDetailsSchema.parse(base);
  const v1 = v1Group(session, session.endedAt, baseUrl);
  return sessionDetailsSchema.parse({ ...v1, ...base, status: session.outcome.status });
}
