/**
 * `@kyc/contracts/webhook-reader`: what a webhook receiver needs (the protocol constants, the
 * tolerant reader of both payload shapes, the field rules, the sample bodies and the types)
 * without zod, so a receiver bundled for an edge runtime stays small. The main entry adds the
 * zod schemas of every wire format.
 *
 * @example
 * import { HEADERS, normalizeWebhookBody } from '@kyc/contracts/webhook-reader';
 *
 * @packageDocumentation
 */
export * from './constants.js';
export {
  calendarDateRule,
  detailsUrlRule,
  durationRule,
  type FieldRule,
  ipAddressRule,
  isoTimestampRule,
  nonEmptyStringRule,
  parseDurationMs,
  scoreRule,
  sessionIdRule,
  stringRule,
} from './field-rules.js';
export * from './fixtures.js';
export { canonicalKey } from './normalize-key.js';
export { normalizeWebhookBody } from './normalize-webhook-body.js';
export { DURATION_PATTERN, HTTP_URL_PATTERN } from './patterns.js';
export { readValidationCheck, type ValidationCheck, type ValidationCheckResult } from './validation-check.js';
export type * from './webhook-types.js';
export type {
  ApiErrorBody,
  SessionDetails,
  WebhookBody,
  WebhookCombinedBody,
  WebhookStatusBody,
  WebhookV1Body,
} from './wire-schemas.js';
