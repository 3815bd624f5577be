import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ReceiverAnswer, WebhookReceiver } from '../../receiver/types.js';
import { NodeInput } from './node-input.js';
import { sendNodeAnswer } from './send-response.js';

/** A `node:http` / Express / Connect handler; `next` is called only with an unexpected internal error. */
export type NodeWebhookHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  next?: (error?: unknown) => void,
) => void;

/**
 * Mounts a receiver on `node:http`, Express (4 and 5) or Connect. It always answers by itself,
 * following the receiver table. When a framework parsed the body first (`express.json()` mounted
 * before it) it answers 500 with a JSON error naming the fix and logs the full explanation
 * through the receiver's logger: the sender retries later, so nothing is lost once the route
 * is fixed, and the request never hangs. Raw bytes kept by `express.raw()`, or in `req.rawBody`
 * (Google Cloud Functions, Firebase `onRequest`, NestJS with `rawBody: true`, an `express.json`
 * `verify` hook), are used as they are, whatever the parser put in `req.body`.
 *
 * @example
 * import express from 'express';
 * const app = express();
 * app.all('/webhooks/kyc', toNodeHandler(receiver)); // before app.use(express.json()); a GET gets 405 + Allow: POST
 * // or keep a global parser that keeps the bytes:
 * // app.use(express.json({ limit: '1mb', verify: (req, _res, buf) => { req.rawBody = buf } }));
 * // or: http.createServer(toNodeHandler(receiver)).listen(3000);
 * // or, on Google Cloud Functions: functions.http('kycWebhook', toNodeHandler(receiver));
 */
export function toNodeHandler(receiver: WebhookReceiver): NodeWebhookHandler {
  return (request, response, next) => {
    receiver.receive(new NodeInput(request)).then(
      (answer: ReceiverAnswer) => sendNodeAnswer(response, answer),
      (error: unknown) => {
        if (next !== undefined) return next(error);
        response.statusCode = 500;
        response.end();
      },
    );
  };
}
