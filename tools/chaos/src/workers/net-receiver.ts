/**
 * The receiver for the network scenario, run inside the suite's own network namespace:
 * `/hook` is the real `@kyc/webhook-receiver`; `/silent` reads the request and never answers;
 * `/after/<ms>` answers 200 after that long; `/reset-mid-body` sends a 200 status line and half
 * a body, then closes. On `port + 1` a bare TCP listener accepts connections and never sends a
 * byte, not even the TLS handshake. Prints `listening`, `recv <id>` per request and `run <id>`
 * per handler run.
 */
import { createServer } from 'node:https';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { HEADERS } from '@kyc/contracts';
import { createWebhookReceiver, memoryIdempotencyStore } from '@kyc/webhook-receiver';
import { toNodeHandler } from '@kyc/webhook-receiver/node';

const { key, cert, authKey, port } = JSON.parse(process.env.KYC_CHAOS ?? '{}') as {
  key: string;
  cert: string;
  authKey: string;
  port: number;
};
const say = (line: string) => process.stdout.write(`${line}\n`);
const receiver = createWebhookReceiver({
  authKeys: authKey,
  idempotencyStore: memoryIdempotencyStore({ maxEntries: 100_000 }),
  logger: {},
  onEvent: (_event, context) => say(`run ${context.webhookId}`),
});
const hook = toNodeHandler(receiver);
const server = createServer({ key, cert }, (req, res) => {
  say(`recv ${req.headers[HEADERS.webhookId]} ${req.url}`);
  const path = req.url ?? '/';
  if (path === '/hook') return hook(req, res);
  req.resume();
  req.once('end', () => {
    if (path === '/silent') return;
    if (path === '/reset-mid-body') {
      res.writeHead(200, { 'content-length': '40' });
      res.write('{"received":');
      // A TLS socket cannot send a TCP RST from Node; closing it mid-body cuts the answer the same way.
      setTimeout(() => res.socket?.destroy(), 20);
      return;
    }
    const after = /^\/after\/(\d+)$/.exec(path);
    setTimeout(() => res.writeHead(200).end('{"received":true}'), Number(after?.[1] ?? 0));
  });
});
// Held, never read from or written to: the sender's TLS handshake waits for an answer that never comes.
const mute = new Set<Socket>();
const tcp = createTcpServer((socket) => {
  mute.add(socket);
  socket.once('close', () => mute.delete(socket));
});
tcp.listen(port + 1, '0.0.0.0', () => server.listen(port, '0.0.0.0', () => say('listening')));
