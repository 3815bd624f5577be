import { createServer } from 'node:http';
import { DEFAULT_MAX_BODY_BYTES, sampleStatusWebhook } from '@kyc/contracts';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { createWebhookReceiver } from '../src/index.js';
import { toNodeHandler } from '../src/node.js';
import { sendOverHttp } from './support/fetch-send.js';
import { listen } from './support/listen.js';
import { AUTH_KEY, authorized, receiverTableSuite } from './support/receiver-table.js';

// Every Express wiring the README and docs/receiving-webhooks.md show, on real Express 5, and the
// global-parser mistake with the fix the receiver names.

/** A valid delivery whose body is `bytes` long (padded with an unknown property, which is kept on `raw`). */
function deliveryOf(bytes: number, sessionId: string): string {
  const base = JSON.stringify({ ...sampleStatusWebhook, sessionId, padding: '' });
  return base.replace('"padding":""', `"padding":"${'x'.repeat(bytes - base.length)}"`);
}
const NEAR_LIMIT = DEFAULT_MAX_BODY_BYTES - 64;

receiverTableSuite('Express 5: app.all on the route, before app.use(express.json())', async (receiver) => {
  const app = express();
  app.all('/webhooks/kyc', toNodeHandler(receiver));
  app.use(express.json());
  const server = await listen(createServer(app));
  return { send: (delivery) => sendOverHttp(server.baseUrl, delivery), close: server.close, wire: server };
});

describe('Express 5 with express.raw() on the route, before the global parser', () => {
  it('uses the raw Buffer that express.raw kept, up to the receiver limit', async () => {
    let runs = 0;
    const receiver = createWebhookReceiver({ authKeys: AUTH_KEY, onEvent: () => void runs++ });
    const app = express();
    app.all(
      '/webhooks/kyc',
      express.raw({ type: 'application/json', limit: DEFAULT_MAX_BODY_BYTES }),
      toNodeHandler(receiver),
    );
    app.use(express.json());
    const server = await listen(createServer(app));
    try {
      expect((await sendOverHttp(server.baseUrl, authorized(sampleStatusWebhook))).status).toBe(200);
      expect((await sendOverHttp(server.baseUrl, authorized(sampleStatusWebhook))).status).toBe(200);
      expect((await sendOverHttp(server.baseUrl, authorized('{"nope"'))).status).toBe(400);
      expect((await sendOverHttp(server.baseUrl, authorized(deliveryOf(NEAR_LIMIT, 'sess_raw_big')))).status).toBe(200);
      expect(runs).toBe(2);
    } finally {
      await server.close();
    }
  });
});

describe('Express 5 with a global express.json({ limit, verify }) keeping req.rawBody', () => {
  it('uses req.rawBody instead of refusing the parsed req.body, up to the receiver limit', async () => {
    const seen: unknown[] = [];
    const receiver = createWebhookReceiver({ authKeys: AUTH_KEY, onEvent: (event) => void seen.push(event.raw) });
    const app = express();
    app.use(
      express.json({
        limit: DEFAULT_MAX_BODY_BYTES,
        verify: (request, _response, bytes) => {
          Reflect.set(request, 'rawBody', bytes);
        },
      }),
    );
    app.all('/webhooks/kyc', toNodeHandler(receiver));
    const server = await listen(createServer(app));
    try {
      const text = `{ "sessionId" : "sess_raw_1", "status": "APPROVED", "timestamp": "2026-11-21T10:15:30.123Z" }`;
      expect((await sendOverHttp(server.baseUrl, authorized(text))).status).toBe(200);
      expect((await sendOverHttp(server.baseUrl, authorized(text))).status).toBe(200);
      expect((await sendOverHttp(server.baseUrl, authorized(deliveryOf(NEAR_LIMIT, 'sess_json_big')))).status).toBe(
        200,
      );
      expect(seen).toHaveLength(2);
      expect(seen[0]).toMatchObject({ sessionId: 'sess_raw_1' });
      const get = await sendOverHttp(server.baseUrl, { method: 'GET', headers: {} });
      expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
    } finally {
      await server.close();
    }
  });
});

describe('Express 5 with a plain express.json() mounted before the receiver (the mistake)', () => {
  it.each([
    ['the route alone', []],
    // express.raw on the route cannot help: the global parser already consumed the stream.
    ['express.raw() on the route', [express.raw({ type: 'application/json' })]],
  ] as const)(
    'with %s: answers a clear 500 at once, logs a fix that works, never runs the handler',
    async (_name, parsers) => {
      const logged: string[] = [];
      let runs = 0;
      const receiver = createWebhookReceiver({
        authKeys: AUTH_KEY,
        onEvent: () => void runs++,
        logger: { error: (message) => void logged.push(message) },
      });
      const app = express();
      app.use(express.json());
      app.post('/webhooks/kyc', ...parsers, toNodeHandler(receiver));
      const server = await listen(createServer(app));
      try {
        const reply = await sendOverHttp(server.baseUrl, { ...authorized(sampleStatusWebhook) });
        expect(reply.status).toBe(500);
        expect(JSON.parse(reply.text).error.code).toBe('receiver_misconfigured');
        expect(reply.text).toMatch(/parsed the body before the receiver/);
        const log = logged.join('\n');
        expect(log).toMatch(/already parsed by a body parser/);
        expect(log).toContain('mount the webhook route before app.use(express.json())');
        expect(log).toContain(
          `express.json({ limit: ${DEFAULT_MAX_BODY_BYTES}, verify: (req, _res, buf) => { req.rawBody = buf } })`,
        );
        expect(log).toMatch(/express\.raw\(\) on the route does not help/);
        expect(runs).toBe(0);
      } finally {
        await server.close();
      }
    },
    5_000,
  );

  it('the fix the log names works: the same app with the verify hook accepts the delivery', async () => {
    const receiver = createWebhookReceiver({ authKeys: AUTH_KEY, onEvent: () => undefined, logger: {} });
    const app = express();
    app.use(
      express.json({ limit: DEFAULT_MAX_BODY_BYTES, verify: (req, _res, buf) => Reflect.set(req, 'rawBody', buf) }),
    );
    app.post('/webhooks/kyc', toNodeHandler(receiver));
    const server = await listen(createServer(app));
    try {
      expect((await sendOverHttp(server.baseUrl, authorized(sampleStatusWebhook))).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
