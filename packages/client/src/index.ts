/**
 * Typed client of the KYC service API: finish a flow, read a flow's details, follow a
 * webhook's detailsURL safely.
 *
 * @packageDocumentation
 */
export type { SessionDetails } from '@kyc/contracts/service-api';
export {
  DEFAULT_DEADLINE_MS,
  DEFAULT_TIMEOUT_MS,
  type KycCallOptions,
  type KycClientOptions,
} from './client-options.js';
export * from './errors.js';
export { KycClient } from './kyc-client.js';
export {
  backoffDelayMs,
  DEFAULT_MAX_RETRIES,
  INITIAL_RETRY_DELAY_MS,
  isRetryableStatus,
  MAX_RETRIES_LIMIT,
  MAX_RETRY_AFTER_SECONDS,
  MAX_RETRY_DELAY_MS,
  parseRetryAfterMs,
} from './retry-policy.js';
export type { KycLogger, KycRetryEvent, KycSleep } from './run-with-retries.js';
export type { KycClientTelemetryOptions } from './telemetry/client-telemetry.js';
export type { OtelApi } from './telemetry/load-api.js';
