import {
  sampleCombinedWebhook,
  sampleSnakeCaseStatusWebhook,
  sampleStatusWebhook,
  sampleTitleCaseStatusWebhook,
  sampleV1Webhook,
} from '@kyc/contracts/webhook-reader';

/**
 * Sample bodies of every shape the service may send, frozen (copy with `structuredClone` to
 * change one). Feed them to `createTestRequest` to unit-test a handler.
 *
 * @example
 * const request = createTestRequest({ payload: samples.status, authKey });
 */
export const samples = Object.freeze({
  /** The v1 body (spec §2.1). */
  v1: sampleV1Webhook,
  /** The status body (spec §2.2). */
  status: sampleStatusWebhook,
  /** One body carrying both groups. */
  both: sampleCombinedWebhook,
  /** The status body in snake_case. */
  snakeCase: sampleSnakeCaseStatusWebhook,
  /** The status body spelled as the specification's group titles. */
  titleCase: sampleTitleCaseStatusWebhook,
});
