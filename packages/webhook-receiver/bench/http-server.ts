import { createServer, type Server } from 'node:http';
import { createNodeMiddleware, Webhooks } from '@octokit/webhooks';
import { createWebhookReceiver, memoryIdempotencyStore } from '../src/index.js';
import { toNodeHandler } from '../src/node.js';
import { AUTH_KEY, GITHUB_SECRET } from './fixtures.js';

/** One benchmark server, run in its own process; prints its port, exits when stdin closes. */
function serverFor(kind: string): Server {
  if (kind === 'bare') {
    return createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        Buffer.concat(chunks);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"received":true}');
      });
    });
  }
  if (kind === 'floor') {
    // What a hand-written endpoint does at the least: compare the bearer key, read the body, JSON.parse it.
    const expected = `Bearer ${AUTH_KEY}`;
    return createServer((request, response) => {
      if (request.headers.authorization !== expected) {
        response.writeHead(401).end();
        return;
      }
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { sessionId?: unknown };
        response.writeHead(typeof event.sessionId === 'string' ? 200 : 400, { 'content-type': 'application/json' });
        response.end('{"received":true}');
      });
    });
  }
  if (kind === 'receiver') {
    const receiver = createWebhookReceiver({
      authKeys: AUTH_KEY,
      // The default store (10 000 keys): a bigger one mostly adds garbage-collector work.
      idempotencyStore: memoryIdempotencyStore(),
      onEvent: () => undefined,
      logger: {},
    });
    return createServer(toNodeHandler(receiver));
  }
  if (kind === 'octokit') {
    const webhooks = new Webhooks({ secret: GITHUB_SECRET });
    webhooks.on('push', () => undefined);
    const middleware = createNodeMiddleware(webhooks, {
      path: '/webhooks/kyc',
      log: { debug() {}, info() {}, warn() {}, error() {} },
    });
    return createServer((request, response) => void middleware(request, response));
  }
  throw new Error(`unknown server kind ${kind}`);
}

const server = serverFor(process.argv[2] ?? '');
// CPU time per request is steadier than requests/s on a shared machine: report both.
let requests = 0;
server.on('request', () => requests++);
let cpuAtStart = process.cpuUsage();
server.once('request', () => {
  cpuAtStart = process.cpuUsage();
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address !== null && typeof address === 'object') process.stdout.write(`${address.port}\n`);
});
process.stdin.on('end', () => {
  const used = process.cpuUsage(cpuAtStart);
  process.stdout.write(`${((used.user + used.system) / Math.max(1, requests)).toFixed(1)}\n`);
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
process.stdin.resume();
