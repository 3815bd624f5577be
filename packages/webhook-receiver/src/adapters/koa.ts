import type { IncomingMessage } from 'node:http';
import type { WebhookReceiver } from '../receiver/types.js';
import { NodeInput } from './node/node-input.js';
import type { ParsedBodyHolder } from './node/read-body.js';

/** The part of a Koa context the middleware uses (Koa 2 and 3 both fit; no type dependency on koa). */
export interface KoaLikeContext {
  readonly method: string;
  readonly req: IncomingMessage;
  /** May carry `body`/`rawBody` when a body parser ran before (koa-bodyparser keeps `rawBody`). */
  readonly request: object;
  status: number;
  body: unknown;
  set(headers: Record<string, string>): void;
}

/** A Koa middleware that answers every request it receives. */
export type KoaWebhookMiddleware = (context: KoaLikeContext, next?: () => Promise<unknown>) => Promise<void>;

/**
 * A Koa middleware that answers webhook deliveries: mount it on the webhook route, before any
 * body parser (or after koa-bodyparser, whose `rawBody` it uses).
 *
 * @example
 * router.all('/webhooks/kyc', toKoaMiddleware(receiver));
 */
export function toKoaMiddleware(receiver: WebhookReceiver): KoaWebhookMiddleware {
  return async (context) => {
    const answer = await receiver.receive(new NodeInput(context.req, context.request as ParsedBodyHolder));
    context.status = answer.status;
    context.set(answer.status === 413 ? { ...answer.headers, connection: 'close' } : { ...answer.headers });
    context.body = answer.body;
  };
}
