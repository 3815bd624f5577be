/**
 * Receive KYC completion webhooks on any runtime: verify the Auth Key, parse both payload
 * shapes, run your handler once per event. Web-standard APIs only (Node, Bun, Deno, Workers).
 *
 * @packageDocumentation
 */

export type {
  AuditAppendOptions,
  AuditEntry,
  AuditFailurePolicy,
  AuditHead,
  AuditOptions,
  AuditRecord,
  AuditSignatureHeaders,
  AuditSink,
} from './audit/types.js';
export { type MemoryIdempotencyStoreOptions, memoryIdempotencyStore } from './idempotency/memory.js';
export type { ClaimOptions, ClaimResult, Clock, CompleteOptions, IdempotencyStore } from './idempotency/store.js';
export {
  type KycCombinedWebhookEvent,
  type KycStatusWebhookEvent,
  type KycV1WebhookEvent,
  type KycWebhookEvent,
  type ParseWebhookOptions,
  parseWebhook,
  type SafeParseWebhookResult,
  safeParseWebhook,
  type WebhookBody,
  type WebhookEventIdentity,
} from './parse-webhook.js';
export { createWebhookReceiver } from './receiver/create-webhook-receiver.js';
export type { AnswerCode, ReceiveOutcome } from './receiver/outcome.js';
export type {
  AuditTrail,
  AuthenticatedReceiverOptions,
  BaseReceiverOptions,
  LogFields,
  ReceiverAnswer,
  ReceiverInput,
  ReceiverLogger,
  UnauthenticatedReceiverOptions,
  WebhookContext,
  WebhookHandler,
  WebhookReceiver,
  WebhookReceiverOptions,
} from './receiver/types.js';
export {
  createStandardWebhooksVerifier,
  type SignatureFailureCode,
  type SignatureHeaders,
  type SignatureResult,
  type StandardWebhooksOptions,
  type StandardWebhooksVerifier,
} from './signatures/standard-webhooks.js';
export type { OtelApi } from './telemetry/load-api.js';
export type { ReceiverTelemetryOptions } from './telemetry/telemetry-options.js';
export {
  type AuthKeys,
  type AuthorizationFailureCode,
  type AuthorizationResult,
  verifyAuthorization,
} from './verify-authorization.js';
export { isWebhookError, WebhookError, type WebhookErrorCode, type WebhookErrorOptions } from './webhook-error.js';
