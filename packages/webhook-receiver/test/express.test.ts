import { createServer } from 'node:http';
import { sampleStatusWebhook } from '@kyc/contracts';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { createWebhookReceiver } from '../src/index.js';
import { toNodeHandler } from '../src/node.js';
import { sendOverHttp } from './support/fetch-send.js';
import { listen } from './support/listen.js';
import { AUTH_KEY, authorized, receiverTableSuite } from './support/receiver-table.js';

receiverTableSuite('Express 5 + toNodeHandler', async (receiver) => {
  const app = express();
  app.all('/webhooks/kyc', toNodeHandler(receiver));
  app.use(express.json());
  const server = await listen(createServer(app));
  return { send: (delivery) => sendOverHttp(server.baseUrl, delivery), close: server.close, wire: server };
});

describe('Express 5 with express.raw() on the route', () => {
  it('uses the raw Buffer that express.raw kept', async () => {
    let runs = 0;
    const receiver = createWebhookReceiver({ authKeys: AUTH_KEY, onEvent: () => void runs++ });
    const app = express();
    app.post('/webhooks/kyc', express.raw({ type: 'application/json' }), toNodeHandler(receiver));
    app.use(express.json());
    const server = await listen(createServer(app));
    try {
      expect((await sendOverHttp(server.baseUrl, authorized(sampleStatusWebhook))).status).toBe(200);
      expect((await sendOverHttp(server.baseUrl, authorized(sampleStatusWebhook))).status).toBe(200);
      expect((await sendOverHttp(server.baseUrl, authorized('{"nope"'))).status).toBe(400);
      expect(runs).toBe(1);
    } finally {
      await server.close();
    }
  });
});

describe('Express 5 with express.json() keeping req.rawBody (the way Google Cloud Functions, Firebase and NestJS do)', () => {
  it('uses req.rawBody instead of refusing the parsed req.body', async () => {
    const seen: unknown[] = [];
    const receiver = createWebhookReceiver({ authKeys: AUTH_KEY, onEvent: (event) => void seen.push(event.raw) });
    const app = express();
    app.use(
      express.json({
        verify: (request, _response, bytes) => {
          Reflect.set(request, 'rawBody', bytes);
        },
      }),
    );
    app.post('/webhooks/kyc', toNodeHandler(receiver));
    const server = await listen(createServer(app));
    try {
      const text = `{ "sessionId" : "sess_raw_1", "status": "APPROVED", "timestamp": "2026-11-21T10:15:30.123Z" }`;
      expect((await sendOverHttp(server.baseUrl, authorized(text))).status).toBe(200);
      expect((await sendOverHttp(server.baseUrl, authorized(text))).status).toBe(200);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ sessionId: 'sess_raw_1' });
    } finally {
      await server.close();
    }
  });
});

describe('Express 5 with express.json() mounted before the receiver', () => {
  it('answers a clear 500 at once (no hang), logs the fix, and never runs the handler', async () => {
    const logged: string[] = [];
    let runs = 0;
    const receiver = createWebhookReceiver({
      authKeys: AUTH_KEY,
      onEvent: () => void runs++,
      logger: { error: (message) => void logged.push(message) },
    });
    const app = express();
    app.use(express.json());
    app.post('/webhooks/kyc', toNodeHandler(receiver));
    const server = await listen(createServer(app));
    try {
      const reply = await sendOverHttp(server.baseUrl, { ...authorized(sampleStatusWebhook) });
      expect(reply.status).toBe(500);
      expect(JSON.parse(reply.text).error.code).toBe('receiver_misconfigured');
      expect(reply.text).toMatch(/parsed the body before the receiver/);
      expect(logged.join('\n')).toMatch(/already parsed by a body parser/);
      expect(logged.join('\n')).toMatch(/express\.raw/);
      expect(runs).toBe(0);
    } finally {
      await server.close();
    }
  }, 5_000);
});
