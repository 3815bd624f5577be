/**
 * A runnable reference KYC service for local integration: the service API (finish a flow,
 * read its details), sandbox endpoints to script outcomes, a dashboard, and webhook delivery
 * with `@kyc/delivery-engine`. Also a CLI, `kyc-sandbox`.
 *
 * @packageDocumentation
 */
export type { AttemptView, DeliveryView } from './api/delivery-view.js';
export { SANDBOX_API } from './api/sandbox-routes.js';
export {
  type CheckEndpointOptions,
  type CheckReport,
  checkEndpoint,
  formatCheckReport,
} from './check/check-endpoint.js';
export type { CheckResult } from './check/endpoint-checks.js';
export { createSandbox, DEFAULT_COMPANY, type Sandbox } from './create-sandbox.js';
export { PAYLOAD_SHAPES, type PayloadShape } from './domain/enum-values.js';
export { LOOPBACK_NETWORKS } from './domain/loopback.js';
export { type OutcomeRequest, outcomeRequestSchema } from './domain/outcome.js';
export { SandboxError, type SandboxErrorCode } from './sandbox-error.js';
export type { SandboxLogger, SandboxOptions } from './sandbox-options.js';
export { type SelfSignedCertificate, selfSignedCertificate } from './server/certificate.js';
export { type RunningSandbox, type StartSandboxOptions, startSandbox } from './start-sandbox.js';
