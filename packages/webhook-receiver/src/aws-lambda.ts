/**
 * Run a receiver on AWS Lambda behind API Gateway (payload 1.0 and 2.0) or a function URL.
 *
 * @packageDocumentation
 */
export type { ApiGatewayV1Event, ApiGatewayV2Event, LambdaHttpEvent } from './adapters/lambda/event.js';
export { type LambdaHttpResult, type LambdaWebhookHandler, toLambdaHandler } from './adapters/lambda/index.js';
