/**
 * Wire formats and protocol constants of the KYC completion webhook: the single source of
 * truth that every other `@kyc/*` package imports.
 *
 * @packageDocumentation
 */
export * from './constants.js';
export {
  calendarDateSchema,
  DURATION_PATTERN,
  detailsUrlSchema,
  durationSchema,
  HTTP_URL_PATTERN,
  ipAddressSchema,
  isoTimestampSchema,
  nonEmptyStringSchema,
  parseDurationMs,
  scoreSchema,
  sessionIdSchema,
  validationMethodSchema,
  verificationStatusSchema,
} from './field-schemas.js';
export * from './fixtures.js';
export { canonicalKey } from './normalize-key.js';
export { normalizeWebhookBody } from './normalize-webhook-body.js';
export { apiErrorBodyMiniSchema, sessionDetailsMiniSchema, sessionIdMiniSchema } from './service-api-schemas.js';
export { readValidationCheck, type ValidationCheck, type ValidationCheckResult } from './validation-check.js';
export type * from './webhook-types.js';
export * from './wire-schemas.js';
