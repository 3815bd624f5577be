import { createServer } from 'node:http';
import { connect } from 'node:net';
import { sampleStatusWebhook, sampleV1Webhook } from '@kyc/contracts';
import bodyParser from 'body-parser';
import { describe, expect, it } from 'vitest';
import { createWebhookReceiver } from '../src/index.js';
import { toNodeHandler } from '../src/node.js';
import { sendOverHttp } from './support/fetch-send.js';
import { listen } from './support/listen.js';
import { AUTH_KEY, authorized, receiverTableSuite } from './support/receiver-table.js';

receiverTableSuite('node:http + toNodeHandler', async (receiver) => {
  const server = await listen(createServer(toNodeHandler(receiver)));
  return { send: (delivery) => sendOverHttp(server.baseUrl, delivery), close: server.close, wire: server };
});

describe('toNodeHandler edge cases (node:http)', () => {
  it('answers 500 at once when something already read the stream (no hang)', async () => {
    let runs = 0;
    const logged: string[] = [];
    const receiver = createWebhookReceiver({
      authKeys: AUTH_KEY,
      onEvent: () => void runs++,
      logger: { error: (message) => void logged.push(message) },
    });
    const handler = toNodeHandler(receiver);
    const server = await listen(
      createServer((request, response) => {
        request.resume(); // a middleware that drained the body
        request.on('end', () => handler(request, response));
      }),
    );
    try {
      const reply = await sendOverHttp(server.baseUrl, authorized(sampleStatusWebhook));
      expect(reply.status).toBe(500);
      expect(JSON.parse(reply.text).error.code).toBe('receiver_misconfigured');
      expect(logged.join('\n')).toMatch(/already read/);
      expect(runs).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('survives a client that disconnects in the middle of the body, and keeps serving', async () => {
    let runs = 0;
    const receiver = createWebhookReceiver({ authKeys: AUTH_KEY, logger: {}, onEvent: () => void runs++ });
    const server = await listen(createServer(toNodeHandler(receiver)));
    try {
      const { port } = new URL(server.baseUrl);
      await new Promise<void>((resolve) => {
        const socket = connect(Number(port), '127.0.0.1', () => {
          socket.write(
            `POST /webhooks/kyc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${AUTH_KEY}\r\nContent-Length: 1000\r\n\r\n{"sessionId":`,
          );
          setTimeout(() => socket.destroy(), 50);
        });
        socket.on('close', () => resolve());
      });
      const reply = await sendOverHttp(server.baseUrl, authorized(sampleStatusWebhook));
      expect(reply.status).toBe(200);
      expect(runs).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('reads the stream behind body-parser 1.x (Express 4), which sets req.body = {} for a request it skipped', async () => {
    let runs = 0;
    const receiver = createWebhookReceiver({ authKeys: AUTH_KEY, logger: {}, onEvent: () => void runs++ });
    const handler = toNodeHandler(receiver);
    // A global urlencoded parser, common in Express 4 apps: it skips a JSON delivery but sets body = {}.
    const urlencoded = bodyParser.urlencoded({ extended: false });
    const json = bodyParser.json();
    const server = await listen(
      createServer((request, response) => {
        const parse = request.url === '/json-first' ? json : urlencoded;
        parse(request, response, () => handler(request, response));
      }),
    );
    try {
      expect((await sendOverHttp(server.baseUrl, authorized(sampleStatusWebhook))).status).toBe(200);
      expect(runs).toBe(1);
      // body-parser's json() did parse it: a clear 500, at once.
      const parsed = await sendOverHttp(server.baseUrl, { ...authorized(sampleV1Webhook), path: '/json-first' });
      expect(parsed.status).toBe(500);
      expect(JSON.parse(parsed.text).error.code).toBe('receiver_misconfigured');
      expect(runs).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('refuses a body parsed into {} after its stream was read', async () => {
    const receiver = createWebhookReceiver({ authKeys: AUTH_KEY, logger: {}, onEvent: () => undefined });
    const handler = toNodeHandler(receiver);
    const server = await listen(
      createServer((request, response) => {
        request.resume();
        request.on('end', () => {
          (request as typeof request & { body?: unknown }).body = {};
          handler(request, response);
        });
      }),
    );
    try {
      const reply = await sendOverHttp(server.baseUrl, authorized('{}'));
      expect(reply.status).toBe(500);
      expect(JSON.parse(reply.text).error.code).toBe('receiver_misconfigured');
    } finally {
      await server.close();
    }
  });
});
