import { createServer } from 'node:http';
import { sampleStatusWebhook, sampleV1Webhook } from '@kyc/contracts';
import Koa from 'koa';
import { describe, expect, it } from 'vitest';
import { createWebhookReceiver } from '../src/index.js';
import { toKoaMiddleware } from '../src/koa.js';
import { sendOverHttp } from './support/fetch-send.js';
import { listen } from './support/listen.js';
import { AUTH_KEY, authorized, receiverTableSuite } from './support/receiver-table.js';

receiverTableSuite('Koa 3 + toKoaMiddleware', async (receiver) => {
  const app = new Koa();
  // Typed as Koa's own Middleware: the structural context type fits Koa without a type dependency.
  const webhook: Koa.Middleware = toKoaMiddleware(receiver);
  app.use(async (context, next) => (context.path === '/webhooks/kyc' ? webhook(context, next) : next()));
  const server = await listen(createServer(app.callback()));
  return { send: (delivery) => sendOverHttp(server.baseUrl, delivery), close: server.close, wire: server };
});

describe('toKoaMiddleware after a body parser', () => {
  it('uses ctx.request.rawBody when a parser kept it, and refuses a parsed body without it', async () => {
    let runs = 0;
    const receiver = createWebhookReceiver({ authKeys: AUTH_KEY, logger: {}, onEvent: () => void runs++ });
    const keepRaw = { value: true };
    const app = new Koa();
    // What koa-bodyparser does: read the stream, set request.body, and (here) keep request.rawBody.
    app.use(async (context, next) => {
      const chunks: Buffer[] = [];
      for await (const chunk of context.req) chunks.push(chunk as Buffer);
      const raw = Buffer.concat(chunks).toString('utf8');
      const request = context.request as typeof context.request & { body?: unknown; rawBody?: string };
      request.body = JSON.parse(raw);
      if (keepRaw.value) request.rawBody = raw;
      await next();
    });
    app.use(toKoaMiddleware(receiver));
    const server = await listen(createServer(app.callback()));
    try {
      expect((await sendOverHttp(server.baseUrl, authorized(sampleStatusWebhook))).status).toBe(200);
      keepRaw.value = false;
      const refused = await sendOverHttp(server.baseUrl, authorized(sampleV1Webhook));
      expect(refused.status).toBe(500);
      expect(JSON.parse(refused.text).error.code).toBe('receiver_misconfigured');
      expect(runs).toBe(1);
    } finally {
      await server.close();
    }
  });
});
