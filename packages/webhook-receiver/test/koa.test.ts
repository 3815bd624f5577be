import { createServer } from 'node:http';
import { bodyParser } from '@koa/bodyparser';
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

describe('toKoaMiddleware after a body parser (@koa/bodyparser)', () => {
  it('uses the rawBody that @koa/bodyparser keeps, and refuses a parsed body without it', async () => {
    let runs = 0;
    const logged: string[] = [];
    const receiver = createWebhookReceiver({
      authKeys: AUTH_KEY,
      logger: { error: (message) => void logged.push(message) },
      onEvent: () => void runs++,
    });
    const keepRaw = { value: true };
    const app = new Koa();
    app.use(bodyParser());
    // Parsers such as koa-body (without includeUnparsed) keep no raw text: drop it to act like one.
    app.use(async (context, next) => {
      if (!keepRaw.value) Reflect.deleteProperty(context.request, 'rawBody');
      await next();
    });
    app.use(toKoaMiddleware(receiver));
    const server = await listen(createServer(app.callback()));
    try {
      expect((await sendOverHttp(server.baseUrl, authorized(sampleStatusWebhook))).status).toBe(200);
      expect((await sendOverHttp(server.baseUrl, authorized(sampleStatusWebhook))).status).toBe(200);
      keepRaw.value = false;
      const refused = await sendOverHttp(server.baseUrl, authorized(sampleV1Webhook));
      expect(refused.status).toBe(500);
      expect(JSON.parse(refused.text).error.code).toBe('receiver_misconfigured');
      expect(logged.join('\n')).toMatch(/already parsed by a body parser/);
      expect(runs).toBe(1);
    } finally {
      await server.close();
    }
  });
});
