import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { kycWebhookPlugin } from '../src/fastify.js';
import { createWebhookReceiver } from '../src/index.js';
import { sendOverHttp } from './support/fetch-send.js';
import { trackBytesRead } from './support/listen.js';
import { AUTH_KEY, receiverTableSuite } from './support/receiver-table.js';

async function start(receiver: Parameters<typeof kycWebhookPlugin>[1]['receiver']) {
  const app = Fastify();
  const bytesRead = trackBytesRead(app.server);
  // A JSON route elsewhere in the app: its parser must be untouched by the plugin's raw parser.
  app.post('/api/echo', async (request) => ({ echoed: request.body }));
  await app.register(kycWebhookPlugin, { receiver, path: '/webhooks/kyc' });
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, baseUrl, bytesRead };
}

receiverTableSuite('Fastify 5 + kycWebhookPlugin', async (receiver) => {
  const { app, baseUrl, bytesRead } = await start(receiver);
  return {
    send: (delivery) => sendOverHttp(baseUrl, delivery),
    close: () => app.close(),
    wire: { baseUrl, bytesRead },
  };
});

describe('kycWebhookPlugin encapsulation', () => {
  it('leaves the JSON parser of the rest of the app in place', async () => {
    const { app, baseUrl } = await start(createWebhookReceiver({ authKeys: AUTH_KEY, onEvent: () => undefined }));
    try {
      const response = await fetch(`${baseUrl}/api/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ a: 1 }),
      });
      expect(await response.json()).toEqual({ echoed: { a: 1 } });
    } finally {
      await app.close();
    }
  });
});
