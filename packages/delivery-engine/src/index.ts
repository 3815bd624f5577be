/**
 * The reference sender of KYC completion webhooks: URL and Auth Key validation, a durable
 * queue over SQLite (here) or Postgres (`@kyc/delivery-engine/postgres`), retries on the exact
 * schedule of the protocol and an attempt log.
 *
 * @packageDocumentation
 */
export { DeliveryEngineError, type DeliveryEngineErrorCode } from './delivery-engine-error.js';
export type { Lane, LanesSnapshot, SlowOrigin, SlowReason } from './engine/attempt-slots.js';
export { type Clock, systemClock } from './engine/clock.js';
export { createDeliveryEngine } from './engine/create-delivery-engine.js';
export type { CredentialsHook, DeliveryCredentials } from './engine/credentials.js';
export type { DeliveryEngine, EnqueueResult, LoopHealth, StopOptions } from './engine/delivery-engine.js';
export { REDACTED } from './engine/headers.js';
export { createManualClock, type ManualClock } from './engine/manual-clock.js';
export {
  type AttemptEvent,
  DEFAULT_LEASE_MARGIN_MS,
  type DeliveryEngineLogger,
  type DeliveryEngineOptions,
} from './engine/options.js';
export type { WebhookEvent } from './engine/prepare-event.js';
export { CREDENTIALS_ERROR_OUTCOME, type DeliveryOutcome, WORKER_LOST_OUTCOME } from './engine/run-attempt.js';
export { type ScaledClock, type ScaledClockOptions, scaledClock } from './engine/scaled-clock.js';
export { planNextAttempt, type ScheduleOptions } from './engine/schedule.js';
export type { AttemptTarget, SelectTransport } from './engine/select-transport.js';
export { standardWebhooksSignature } from './engine/signing.js';
// The sealing, transport and validation helpers own their public surface in these barrels.
export * from './sealing/index.js';
export {
  type SqliteDeliveryStoreOptions,
  type SqliteDurability,
  sqliteDeliveryStore,
} from './store/sqlite.js';
export type * from './store/store.js';
export type { DeliveryEngineTelemetryOptions } from './telemetry/engine-telemetry.js';
export { formatTraceparent, parseTraceparent } from './telemetry/traceparent.js';
export * from './transport/index.js';
export * from './validation/index.js';
