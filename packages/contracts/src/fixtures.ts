import { API_BASE_PATH, SESSION_COMPLETED_EVENT, SESSION_PATH } from './constants.js';
import type {
  ApiErrorBody,
  SessionDetails,
  WebhookCombinedBody,
  WebhookStatusBody,
  WebhookV1Body,
} from './wire-schemas.js';

/**
 * Sample bodies of every shape, for tests and docs. They are frozen: copy before changing
 * (`structuredClone(sampleV1Webhook)`).
 */

const SAMPLE_BASE_URL = 'https://kyc.example.com';
const SAMPLE_SESSION_ID = 'sess_8f14e45fceea167a';

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** The detail URL of a session under a service base URL. */
export function sessionDetailsUrl(baseUrl: string, sessionId: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${API_BASE_PATH}${SESSION_PATH}/${encodeURIComponent(sessionId)}`;
}

/** A v1 body (spec §2.1). */
export const sampleV1Webhook: WebhookV1Body = deepFreeze({
  id: SAMPLE_SESSION_ID,
  shortKey: 'K7QX2M',
  startedAt: '2026-11-21T10:13:55.042Z',
  endedAt: '2026-11-21T10:15:30.123Z',
  duration: '95s',
  detailsURL: sessionDetailsUrl(SAMPLE_BASE_URL, SAMPLE_SESSION_ID),
  scores: { document: 98.2, liveness: 96.4, oneToOne: 91.7, total: 95.4 },
  validation: 'AUTOMATIC',
});

/** A status-shaped body (spec §2.2, names from DESIGN). */
export const sampleStatusWebhook: WebhookStatusBody = deepFreeze({
  event: SESSION_COMPLETED_EVENT,
  timestamp: '2026-11-21T10:15:30.123Z',
  sessionId: SAMPLE_SESSION_ID,
  status: 'APPROVED',
  confidenceScore: 97.5,
  userData: {
    name: 'Ana María García López',
    documentNumber: 'X1234567L',
    dateOfBirth: '1990-04-01',
    nationality: 'ES',
  },
  validationResults: {
    documentAuthenticity: { passed: true, score: 98.2 },
    facialMatch: { passed: true, score: 91.7 },
    livenessDetection: { passed: true, score: 96.4 },
  },
  metadata: {
    ipAddress: '203.0.113.24',
    geolocation: {
      country: 'ES',
      region: 'Comunidad de Madrid',
      city: 'Madrid',
      latitude: 40.4168,
      longitude: -3.7038,
      accuracyMeters: 35,
      timezone: 'Europe/Madrid',
    },
    device: {
      type: 'mobile',
      os: 'Android 15',
      browser: 'Chrome 131.0.6778.135',
      model: 'Pixel 9',
      language: 'es-ES',
      screen: '1080x2424',
      sdkVersion: 'kyc-web-sdk/4.12.0',
      userAgent:
        'Mozilla/5.0 (Linux; Android 15; Pixel 9) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
    },
  },
});

/** One body carrying both groups. */
export const sampleCombinedWebhook: WebhookCombinedBody = deepFreeze({
  ...structuredClone(sampleV1Webhook),
  ...structuredClone(sampleStatusWebhook),
});

/** The status shape spelled in snake_case, one of the variants receivers must accept. */
export const sampleSnakeCaseStatusWebhook: Readonly<Record<string, unknown>> = deepFreeze({
  event: SESSION_COMPLETED_EVENT,
  timestamp: '2026-11-21T10:15:30.123Z',
  session_id: SAMPLE_SESSION_ID,
  verification_status: 'REJECTED',
  confidence_score: 42,
  user_data: { name: 'Ana', document_number: 'X1234567L', date_of_birth: '1990-04-01', nationality: 'ES' },
  validation_results: { document_authenticity: 'PASSED', facial_match: false, liveness_detection: 38 },
  metadata: { ip_address: '2001:db8::24', geolocation: 'Madrid, ES', device: { os: 'iOS 18' } },
});

/** The status shape spelled as the specification's group titles (`SessionID`, `Verification Status`). */
export const sampleTitleCaseStatusWebhook: Readonly<Record<string, unknown>> = deepFreeze({
  Event: SESSION_COMPLETED_EVENT,
  Timestamp: '2026-11-21T10:15:30.123Z',
  SessionID: SAMPLE_SESSION_ID,
  'Verification Status': 'PENDING',
  'Confidence Score': 63.5,
  'User Data': { Name: 'Ana', 'Document Number': 'X1234567L', 'Date of Birth': '1990-04-01', Nationality: 'ES' },
  'Validation Results': { 'Document Authenticity': true, 'Facial Match': true, 'Liveness Detection': 'FAILED' },
  Metadata: { 'IP Address': '203.0.113.24', Geolocation: { country: 'ES' }, 'Device Information': { os: 'Android' } },
});

/** Session details as `GET {base}/session/<id>` returns them for a finished session. */
export const sampleSessionDetails: SessionDetails = deepFreeze({
  ...structuredClone(sampleV1Webhook),
  state: 'FINISHED',
  status: 'APPROVED',
});

/** An error body of the service API. */
export const sampleApiErrorBody: ApiErrorBody = deepFreeze({
  error: { code: 'SESSION_NOT_FOUND', message: 'No session with id "sess_missing".' },
});
