/**
 * Wire formats and protocol constants of the KYC completion webhook: the single source of
 * truth that every other `@kyc/*` package imports. Two smaller entries leave zod's classic
 * schemas out: `@kyc/contracts/webhook-reader` (receivers) and `@kyc/contracts/service-api`
 * (API callers).
 *
 * @packageDocumentation
 */
export {
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
export { apiErrorBodyMiniSchema, sessionDetailsMiniSchema, sessionIdMiniSchema } from './service-api-schemas.js';
export * from './webhook-reader.js';
export * from './wire-schemas.js';
