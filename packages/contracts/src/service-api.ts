/**
 * `@kyc/contracts/service-api`: what a caller of the service API needs (the protocol constants,
 * the `zod/mini` response schemas and the wire types) without the classic zod schemas of the
 * main entry, so a client bundled for the web or an edge runtime stays small.
 *
 * @example
 * import { sessionDetailsMiniSchema, API_BASE_PATH } from '@kyc/contracts/service-api';
 *
 * @packageDocumentation
 */
export * from './constants.js';
export { DURATION_PATTERN, HTTP_URL_PATTERN } from './patterns.js';
export { apiErrorBodyMiniSchema, sessionDetailsMiniSchema, sessionIdMiniSchema } from './service-api-schemas.js';
export type { ApiErrorBody, FinishSessionRequest, SessionDetails } from './wire-schemas.js';
