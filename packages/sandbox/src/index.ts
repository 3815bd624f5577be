/**
 * A runnable reference KYC service for local integration: the service API (finish a flow,
 * read its details), sandbox endpoints to script outcomes, a dashboard, and webhook delivery
 * with `@kyc/delivery-engine`. Also a CLI, `kyc-sandbox`.
 *
 * @packageDocumentation
 */
export type { AttemptView, DeliveryView } from './api/delivery-view.js';
export { IDEMPOTENCY_KEY_HEADER, PORTAL_API } from './api/portal-routes.js';
export { SANDBOX_API } from './api/sandbox-routes.js';
export {
  type CheckEndpointOptions,
  type CheckReport,
  checkEndpoint,
  formatCheckReport,
} from './check/check-endpoint.js';
export {
  type AttemptToDiagnose,
  type Diagnosis,
  diagnoseAttempt,
  SPEC_HINTS,
  type SpecHint,
} from './check/diagnose-attempt.js';
export type { CheckId, CheckResult } from './check/endpoint-checks.js';
export { createSandbox, DEFAULT_COMPANY, type Sandbox } from './create-sandbox.js';
export { PAYLOAD_SHAPES, type PayloadShape } from './domain/enum-values.js';
export { LOOPBACK_NETWORKS } from './domain/loopback.js';
export { type OutcomeRequest, outcomeRequestSchema } from './domain/outcome.js';
export type { ForwardMark } from './listen/forward-log.js';
export type { ListenerInfo } from './listen/listener-session.js';
export { type AttemptHealth, HEALTH_HOURS, type HealthFailure, type HealthHour } from './portal/compute-health.js';
export { type DeliveryFilterView, PAGE_SIZE, STATUS_FILTERS, type StatusFilter } from './portal/delivery-query.js';
export type { EndpointPace } from './portal/endpoint-pace.js';
export type {
  ActionResult,
  AttemptDetail,
  DeliveryDetail,
  DeliveryListItem,
  DeliveryPage,
  EndpointHealth,
} from './portal/portal-service.js';
export { SandboxError, type SandboxErrorCode } from './sandbox-error.js';
export type { LogFields, SandboxLogger, SandboxOptions } from './sandbox-options.js';
export { type SelfSignedCertificate, selfSignedCertificate } from './server/certificate.js';
export { type RunningSandbox, type StartSandboxOptions, startSandbox } from './start-sandbox.js';
export { jsonLogger } from './telemetry/json-logger.js';
export type { Readiness } from './telemetry/ops-routes.js';
export {
  PROMETHEUS_CONTENT_TYPE,
  type SandboxTelemetry,
  type StartTelemetryOptions,
  startTelemetry,
} from './telemetry/start-telemetry.js';
