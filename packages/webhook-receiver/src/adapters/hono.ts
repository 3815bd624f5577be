import type { IncomingMessage } from 'node:http';
import type { ReceiverAnswer, WebhookReceiver } from '../receiver/types.js';
import { NodeInput } from './node/node-input.js';

/** The part of a Hono context the handler uses (no type dependency on hono). */
export interface HonoLikeContext {
  /** Hono's request; `raw` is the Fetch API `Request`. */
  readonly req: { readonly raw: Request };
  /** On `@hono/node-server`, holds `incoming`: the Node request. */
  readonly env?: unknown;
}

/** A Hono route handler. */
export type HonoWebhookHandler = (context: HonoLikeContext) => Promise<Response>;

/** The Node request behind the context, when Hono runs on `@hono/node-server` and nothing has begun to read its body. */
function untouchedIncoming(env: unknown): IncomingMessage | undefined {
  const incoming = (env as { incoming?: Partial<IncomingMessage> } | null | undefined)?.incoming;
  if (typeof incoming?.on !== 'function' || typeof incoming.headers !== 'object') return undefined;
  // A middleware that began on the body went through Hono's Request: let that Request finish it.
  if (incoming.readableFlowing !== null || incoming.readableDidRead === true) return undefined;
  return incoming as IncomingMessage;
}

function toResponse(answer: ReceiverAnswer): Response {
  // A fresh headers object: @hono/node-server writes to it. After a 413 the connection closes,
  // so the rest of an oversized body is not read on a kept-alive connection (as on node:http).
  const headers = answer.status === 413 ? { ...answer.headers, connection: 'close' } : { ...answer.headers };
  return new Response(answer.body, { status: answer.status, headers });
}

/**
 * A Hono handler for the webhook route. On `@hono/node-server` it reads the Node request
 * itself (`c.env.incoming`), as `toNodeHandler` does: going through the Fetch API `Request`
 * that the server builds over it cost a tenth more CPU per request. Elsewhere (Workers, Bun,
 * Deno), or when a middleware already began on the body, it is `receiver.handle(c.req.raw)`.
 * Every method reaches the receiver, which answers 405 to all but POST.
 *
 * @example
 * app.all('/webhooks/kyc', toHonoHandler(receiver));
 */
export function toHonoHandler(receiver: WebhookReceiver): HonoWebhookHandler {
  return (context) => {
    const incoming = untouchedIncoming(context.env);
    if (incoming === undefined) return receiver.handle(context.req.raw);
    return receiver.receive(new NodeInput(incoming)).then(toResponse);
  };
}
