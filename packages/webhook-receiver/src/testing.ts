/**
 * Helpers to unit-test a webhook handler without the service: requests shaped like real
 * deliveries and sample bodies of every shape.
 *
 * @packageDocumentation
 */
export {
  createLambdaEvent,
  type LambdaEventOptions,
  type LambdaEventShape,
} from './testing/create-lambda-event.js';
export { createTestRequest, type TestRequestOptions } from './testing/create-test-request.js';
export { samples } from './testing/samples.js';
