import type { FastifyPluginAsync } from 'fastify';
import type { WebhookReceiver } from '../receiver/types.js';
import { NodeInput } from './node/node-input.js';

const NO_PARSED_BODY = Object.freeze({});

const leaveUnread = (_request: unknown, _payload: unknown, done: (error: null, body: undefined) => void) =>
  done(null, undefined);

/** Options of {@link kycWebhookPlugin}. */
export interface KycWebhookPluginOptions {
  readonly receiver: WebhookReceiver;
  /** The route path, chosen by you (e.g. `/webhooks/kyc`). */
  readonly path: string;
}

/**
 * A Fastify plugin that registers the webhook route. Inside its own encapsulated context it
 * replaces the body parsers with one that leaves the stream unread, so the receiver reads the
 * raw bytes with its own size limit, while the rest of the app keeps its JSON parser. Every
 * method reaches the receiver, which answers 405 to all but POST.
 *
 * @example
 * await app.register(kycWebhookPlugin, { receiver, path: '/webhooks/kyc' });
 */
export const kycWebhookPlugin: FastifyPluginAsync<KycWebhookPluginOptions> = async (fastify, options) => {
  const { receiver, path } = options;
  fastify.removeAllContentTypeParsers();
  // Fastify caches the parser found for a content type, but never the catch-all: registered
  // alone, it made Fastify parse the Content-Type header again and search its lists on every
  // request. JSON, the type every sender uses, gets the same parser by name.
  fastify.addContentTypeParser('application/json', leaveUnread);
  fastify.addContentTypeParser('*', leaveUnread);
  // Not an async handler: the answer is sent from the receiver's own promise, with no layer on top.
  fastify.all(path, (request, reply) => {
    // The plugin's parser left the stream unread: read it, whatever else a hook put on the raw request.
    receiver.receive(new NodeInput(request.raw, NO_PARSED_BODY)).then(
      (answer) => {
        if (answer.status === 413) reply.header('connection', 'close');
        reply.code(answer.status).headers(answer.headers).send(answer.body);
      },
      (error: unknown) => reply.send(error),
    );
  });
};
