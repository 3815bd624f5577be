import * as z from 'zod';
import { API_ERROR_CODES, SESSION_COMPLETED_EVENT, SESSION_STATES } from './constants.js';
import {
  calendarDateSchema,
  detailsUrlSchema,
  durationSchema,
  ipAddressSchema,
  isoTimestampSchema,
  nonEmptyStringSchema,
  scoreSchema,
  sessionIdSchema,
  validationMethodSchema,
  verificationStatusSchema,
} from './field-schemas.js';

/**
 * The bodies exactly as the service writes them. The sender builds payloads with these
 * and the client validates API responses with them; receivers read webhooks with the
 * tolerant {@link normalizeWebhookBody} instead, because the real property names of the
 * status shape are not shown by the specification. Objects are loose: unknown properties
 * pass through (forward compatibility).
 */

/** `scores` of the v1 body. */
export const webhookScoresSchema = z.looseObject({
  document: scoreSchema,
  liveness: scoreSchema,
  oneToOne: scoreSchema,
  total: scoreSchema,
});

/** The v1 group (spec §2.1), names exactly as given. */
export const webhookV1Fields = {
  id: sessionIdSchema,
  shortKey: nonEmptyStringSchema,
  startedAt: isoTimestampSchema,
  endedAt: isoTimestampSchema,
  duration: durationSchema,
  detailsURL: detailsUrlSchema,
  scores: webhookScoresSchema,
  validation: validationMethodSchema,
};

/** The v1 webhook body. */
export const webhookV1Schema = z.looseObject(webhookV1Fields);
export type WebhookV1Body = z.infer<typeof webhookV1Schema>;

const validationCheckWireSchema = z.union([
  z.boolean(),
  scoreSchema,
  z.string(),
  z.looseObject({ passed: z.boolean().optional(), score: scoreSchema.optional() }),
]);

/** The status group (spec §2.2) with the property names chosen in DESIGN. */
export const webhookStatusFields = {
  event: z.literal(SESSION_COMPLETED_EVENT),
  timestamp: isoTimestampSchema,
  sessionId: sessionIdSchema,
  status: verificationStatusSchema,
  confidenceScore: scoreSchema,
  userData: z.looseObject({
    name: z.string(),
    documentNumber: z.string(),
    dateOfBirth: calendarDateSchema,
    nationality: z.string(),
  }),
  validationResults: z.looseObject({
    documentAuthenticity: validationCheckWireSchema,
    facialMatch: validationCheckWireSchema,
    livenessDetection: validationCheckWireSchema,
  }),
  metadata: z.looseObject({
    ipAddress: ipAddressSchema,
    geolocation: z.union([z.record(z.string(), z.unknown()), z.string()]),
    device: z.union([z.record(z.string(), z.unknown()), z.string()]),
  }),
};

/** The status-shaped webhook body. */
export const webhookStatusSchema = z.looseObject(webhookStatusFields);
export type WebhookStatusBody = z.infer<typeof webhookStatusSchema>;

/** One body carrying both groups. */
export const webhookCombinedSchema = z.looseObject({ ...webhookV1Fields, ...webhookStatusFields });
export type WebhookCombinedBody = z.infer<typeof webhookCombinedSchema>;

/** Any body the service sends. */
export type WebhookBody = WebhookV1Body | WebhookStatusBody | WebhookCombinedBody;

/**
 * The session details returned by `GET {base}/session/<id>` and `POST {base}/session/finish`:
 * the v1 fields (those not known yet are absent while the session is in progress), plus
 * `state` and, when known, `status`.
 */
export const sessionDetailsSchema = z.looseObject({
  id: sessionIdSchema,
  shortKey: webhookV1Fields.shortKey,
  state: z.enum(SESSION_STATES),
  startedAt: isoTimestampSchema,
  endedAt: isoTimestampSchema.optional(),
  duration: durationSchema.optional(),
  detailsURL: detailsUrlSchema,
  scores: webhookScoresSchema.optional(),
  validation: validationMethodSchema.optional(),
  status: verificationStatusSchema.optional(),
});
export type SessionDetails = z.infer<typeof sessionDetailsSchema>;

/** The body of `POST {base}/session/finish`. */
export const finishSessionRequestSchema = z.object({ sessionId: sessionIdSchema });
export type FinishSessionRequest = z.infer<typeof finishSessionRequestSchema>;

/** The error body of the service API: `{"error": {"code", "message"}}`. Unknown codes may appear. */
export const apiErrorBodySchema = z.looseObject({
  error: z.looseObject({
    code: z.union([z.enum(API_ERROR_CODES), z.string().min(1)]),
    message: z.string(),
  }),
});
export type ApiErrorBody = z.infer<typeof apiErrorBodySchema>;
