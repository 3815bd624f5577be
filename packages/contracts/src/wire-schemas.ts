import * as z from 'zod';
import {
  API_BASE_PATH,
  API_ERROR_CODES,
  SCORE_MAX,
  SCORE_MIN,
  SESSION_COMPLETED_EVENT,
  SESSION_PATH,
  SESSION_STATES,
  SUGGESTED_ACTIONS,
  VERIFICATION_STATUSES,
} from './constants.js';
import { CONFLICTING_SESSION_IDS } from './field-rules.js';
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
 *
 * Each field's `description` (the specification's meaning) travels with its schema: the JSON
 * Schemas and the OpenAPI document of `@kyc/contracts/openapi` are generated from these.
 */

const validationCheckWireSchema = z.union([
  z.boolean(),
  scoreSchema,
  z.string(),
  z.looseObject({
    passed: z.boolean().optional().meta({ description: 'Whether the check passed.' }),
    score: scoreSchema.optional().meta({ description: `Score of the check (${SCORE_MIN}–${SCORE_MAX}).` }),
  }),
]);

const score = (what: string) =>
  scoreSchema.meta({ description: `${what} (${SCORE_MIN}–${SCORE_MAX}).`, examples: [91.7] });
const timestamp = (what: string) =>
  isoTimestampSchema.meta({
    description: `${what}: an ISO 8601 UTC timestamp with fractional seconds and \`Z\`.`,
    examples: ['2026-11-21T10:15:30.123Z'],
  });
const statusMeanings = VERIFICATION_STATUSES.map((status) => `\`${status}\` (${SUGGESTED_ACTIONS[status]})`).join(', ');
const status = verificationStatusSchema.meta({
  description: `Verification status, with the specification's suggested customer action: ${statusMeanings}.`,
});
const validationCheck = (what: string) =>
  validationCheckWireSchema.meta({
    description: `${what}. The service sends \`{passed, score}\`; a boolean, a ${SCORE_MIN}–${SCORE_MAX} score or a status word are accepted as well.`,
  });
const freeForm = (what: string) => z.union([z.record(z.string(), z.unknown()), z.string()]).meta({ description: what });

/** `scores` of the v1 body. */
export const webhookScoresSchema = z
  .looseObject({
    document: score('Document verification score'),
    liveness: score('Liveness verification score'),
    oneToOne: score('One-to-one (face match) verification score'),
    total: score('Total verification score'),
  })
  .meta({ description: `The verification scores, each on the ${SCORE_MIN}–${SCORE_MAX} scale.` });

/** The v1 group (spec §2.1), names exactly as given. */
export const webhookV1Fields = {
  id: sessionIdSchema.meta({ description: 'Session identifier.', examples: ['sess_8f14e45fceea167a'] }),
  shortKey: nonEmptyStringSchema.meta({ description: 'Short key associated with the session.', examples: ['K7QX2M'] }),
  startedAt: timestamp('Start of the session'),
  endedAt: timestamp('End of the session'),
  duration: durationSchema.meta({
    description:
      'Duration of the session: one or more number + unit pairs, units `ns`, `us`, `µs`, `ms`, `s`, `m`, `h`, `d`.',
    examples: ['95s', '250ms', '1h2m3.5s'],
  }),
  detailsURL: detailsUrlSchema.meta({
    description: `URL of the details of the finished flow, \`{baseUrl}${API_BASE_PATH}${SESSION_PATH}/<id>\`: GET it with the operator-issued credentials. Check that it points at the service's origin before sending them.`,
    examples: [`https://kyc.example.com${API_BASE_PATH}${SESSION_PATH}/sess_8f14e45fceea167a`],
  }),
  scores: webhookScoresSchema,
  validation: validationMethodSchema.meta({ description: 'Validation method used.' }),
};

/** The v1 webhook body. */
export const webhookV1Schema = z.looseObject(webhookV1Fields);
export type WebhookV1Body = z.infer<typeof webhookV1Schema>;

/** The status group (spec §2.2) with the property names chosen in DESIGN. */
export const webhookStatusFields = {
  event: z
    .literal(SESSION_COMPLETED_EVENT)
    .meta({ description: 'Notification that the session completed: the only event the service sends.' }),
  timestamp: timestamp('When the session completed'),
  sessionId: sessionIdSchema.meta({
    description: 'Session identifier (the same value as `id` when a body carries both groups).',
    examples: ['sess_8f14e45fceea167a'],
  }),
  status,
  confidenceScore: score('Confidence score of the verification'),
  userData: z
    .looseObject({
      name: z.string().meta({ description: 'Full name of the verified person.' }),
      documentNumber: z.string().meta({ description: 'Number of the identity document.' }),
      dateOfBirth: calendarDateSchema.meta({ description: 'Date of birth, `YYYY-MM-DD`.' }),
      nationality: z.string().meta({ description: 'Nationality, e.g. an ISO 3166-1 alpha-2 country code.' }),
    })
    .meta({ description: "The verified person's data." }),
  validationResults: z
    .looseObject({
      documentAuthenticity: validationCheck('Document authenticity check'),
      facialMatch: validationCheck('Facial match check'),
      livenessDetection: validationCheck('Liveness detection check'),
    })
    .meta({ description: 'The results of the individual checks.' }),
  metadata: z
    .looseObject({
      ipAddress: ipAddressSchema.meta({ description: "IP address (IPv4 or IPv6) of the person's device." }),
      geolocation: freeForm('Geolocation: an object (country, region, city, coordinates) or a place as text.'),
      device: freeForm('Device information: an object (type, operating system, browser, model) or a text.'),
    })
    .meta({ description: 'Where and on what the session ran.' }),
};

/** The status-shaped webhook body. */
export const webhookStatusSchema = z.looseObject(webhookStatusFields);
export type WebhookStatusBody = z.infer<typeof webhookStatusSchema>;

/**
 * One body carrying both groups. `id` and `sessionId` must name the same session: the receiver
 * refuses a body where they differ (`conflicting_session_id`), and so does this schema (the JSON
 * Schema generated from it cannot say that two properties are equal; see docs/contract.md).
 */
export const webhookCombinedSchema = z
  .looseObject({ ...webhookV1Fields, ...webhookStatusFields })
  .refine((body) => body.id === body.sessionId, { path: ['sessionId'], message: CONFLICTING_SESSION_IDS });
export type WebhookCombinedBody = z.infer<typeof webhookCombinedSchema>;

/** Any body the service sends. */
export type WebhookBody = WebhookV1Body | WebhookStatusBody | WebhookCombinedBody;

/**
 * The session details returned by `GET {base}/session/<id>` and `POST {base}/session/finish`:
 * the v1 fields (those not known yet are absent while the session is in progress), plus
 * `state` and, when known, `status`.
 */
export const sessionDetailsSchema = z.looseObject({
  id: webhookV1Fields.id,
  shortKey: webhookV1Fields.shortKey,
  state: z.enum(SESSION_STATES).meta({ description: 'Life-cycle state of the session.' }),
  startedAt: webhookV1Fields.startedAt,
  endedAt: webhookV1Fields.endedAt.optional(),
  duration: webhookV1Fields.duration.optional(),
  detailsURL: webhookV1Fields.detailsURL,
  scores: webhookScoresSchema.optional(),
  validation: webhookV1Fields.validation.optional(),
  status: status.optional(),
});
export type SessionDetails = z.infer<typeof sessionDetailsSchema>;

/** The body of `POST {base}/session/finish`. */
export const finishSessionRequestSchema = z.object({
  sessionId: sessionIdSchema.meta({
    description: 'Identifier of the session to finish.',
    examples: ['sess_8f14e45fceea167a'],
  }),
});
export type FinishSessionRequest = z.infer<typeof finishSessionRequestSchema>;

/** The error body of the service API: `{"error": {"code", "message"}}`. Unknown codes may appear. */
export const apiErrorBodySchema = z.looseObject({
  error: z
    .looseObject({
      code: z
        .union([z.enum(API_ERROR_CODES), z.string().min(1)])
        .meta({ description: 'Stable error code. Codes not listed here may appear: treat them by HTTP status.' }),
      message: z.string().meta({ description: 'What went wrong, for people; it never holds a credential.' }),
    })
    .meta({ description: 'What went wrong.' }),
});
export type ApiErrorBody = z.infer<typeof apiErrorBodySchema>;
