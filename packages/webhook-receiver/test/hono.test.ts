import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { toHonoHandler } from '../src/hono.js';
import { createWebhookReceiver } from '../src/index.js';
import { createTestRequest, samples } from '../src/testing.js';
import { sendOverHttp } from './support/fetch-send.js';
import { listen } from './support/listen.js';
import { receiverTableSuite } from './support/receiver-table.js';

receiverTableSuite('Hono on @hono/node-server + handle', async (receiver) => {
  const app = new Hono();
  app.all('/webhooks/kyc', (context) => receiver.handle(context.req.raw));
  const server = await listen(createAdaptorServer({ fetch: app.fetch }) as Server);
  return { send: (delivery) => sendOverHttp(server.baseUrl, delivery), close: server.close, wire: server };
});

receiverTableSuite('Hono on @hono/node-server + toHonoHandler', async (receiver) => {
  const app = new Hono();
  app.all('/webhooks/kyc', toHonoHandler(receiver));
  const server = await listen(createAdaptorServer({ fetch: app.fetch }) as Server);
  return { send: (delivery) => sendOverHttp(server.baseUrl, delivery), close: server.close, wire: server };
});

describe('toHonoHandler beside the node:http path', () => {
  const AUTH_KEY = 'kyc_test_Q3v9ZrT1mW8xLp2N';
  const make = () => {
    const seen: string[] = [];
    const receiver = createWebhookReceiver({
      authKeys: AUTH_KEY,
      logger: {},
      onEvent: (event) => void seen.push(event.sessionId),
    });
    return { receiver, seen };
  };

  it('answers through the Fetch API request where there is no Node request (Workers, Bun, app.request)', async () => {
    const { receiver, seen } = make();
    const app = new Hono();
    app.all('/webhooks/kyc', toHonoHandler(receiver));
    const response = await app.fetch(
      createTestRequest({ payload: samples.status, authKey: AUTH_KEY, webhookId: 'evt_a' }),
    );
    expect(response.status).toBe(200);
    expect(seen).toEqual([samples.status.sessionId]);
  });

  it('leaves a body a middleware began to read to Hono’s request, which tells the receiver it was consumed', async () => {
    const { receiver, seen } = make();
    const app = new Hono();
    app.use('/webhooks/kyc', async (context, next) => {
      await context.req.raw.clone().text();
      await next();
    });
    app.all('/webhooks/kyc', toHonoHandler(receiver));
    const server = await listen(createAdaptorServer({ fetch: app.fetch }) as Server);
    try {
      const request = createTestRequest({ payload: samples.status, authKey: AUTH_KEY, webhookId: 'evt_b' });
      const response = await fetch(`${server.baseUrl}/webhooks/kyc`, {
        method: 'POST',
        headers: request.headers,
        body: await request.text(),
      });
      expect(response.status).toBe(200);
      expect(seen).toEqual([samples.status.sessionId]);
    } finally {
      await server.close();
    }
  });
});
