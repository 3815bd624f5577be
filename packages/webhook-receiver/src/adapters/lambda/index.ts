import type { ReceiverAnswer, WebhookReceiver } from '../../receiver/types.js';
import { type LambdaHttpEvent, lambdaRequestOf } from './event.js';
import { lambdaBodyReader } from './read-body.js';

/** What the handler returns: the result object API Gateway (1.0 and 2.0) and function URLs accept. */
export interface LambdaHttpResult {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly isBase64Encoded: false;
}

/** A Lambda handler for HTTP events. */
export type LambdaWebhookHandler = (event: LambdaHttpEvent, context?: unknown) => Promise<LambdaHttpResult>;

function resultOf(answer: ReceiverAnswer): LambdaHttpResult {
  return { statusCode: answer.status, headers: { ...answer.headers }, body: answer.body, isBase64Encoded: false };
}

/**
 * A Lambda handler behind API Gateway (REST API with payload 1.0, HTTP API with 2.0) or a
 * Lambda function URL: it reads the event (base64 bodies, multi-value headers) and returns the
 * result object. An event from any other trigger is refused with a `WebhookError`
 * (`unsupported_event`), so the invocation fails loudly instead of answering nobody.
 *
 * Keep processed events in a store every instance shares (`@kyc/webhook-receiver/redis` or
 * `/postgres`): each Lambda instance has its own memory, so the default memory store would let
 * a retry that lands on another instance run the handler again.
 *
 * @example
 * export const handler = toLambdaHandler(createWebhookReceiver({ authKeys: process.env.KYC_AUTH_KEY, idempotencyStore, onEvent }));
 */
export function toLambdaHandler(receiver: WebhookReceiver): LambdaWebhookHandler {
  return async (event) => {
    const request = lambdaRequestOf(event);
    const answer = await receiver.receive({
      method: request.method,
      header: (name) => request.headers.get(name),
      readBody: lambdaBodyReader(request),
    });
    return resultOf(answer);
  };
}
