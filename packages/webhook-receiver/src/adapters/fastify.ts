import type { FastifyPluginAsync } from 'fastify';
import type { WebhookReceiver } from '../receiver/types.js';
import { nodeHeaderReader } from './node/get-header.js';
import { nodeBodyReader } from './node/read-body.js';

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
  fastify.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  fastify.all(path, async (request, reply) => {
    const answer = await receiver.receive({
      method: request.method,
      header: nodeHeaderReader(request.raw),
      readBody: nodeBodyReader(request.raw, {}),
    });
    if (answer.status === 413) reply.header('connection', 'close');
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
  });
};
