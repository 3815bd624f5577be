import { once } from 'node:events';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server } from 'node:https';
import { createServer as createNetServer, connect as netConnect, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

/** One request as a loopback receiver saw it. */
export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  /** The SNI name the client sent (false when it sent none, e.g. when dialling an IP). */
  readonly servername: string | false;
}

/** A real HTTPS server on a loopback address that counts every TCP connection it accepts. */
export interface TestReceiver {
  readonly port: number;
  readonly host: string;
  readonly origin: string;
  readonly requests: ReceivedRequest[];
  connections(): number;
  close(): Promise<void>;
}

export type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void;

function track(server: { on(event: 'connection', listener: (socket: Socket) => void): unknown }) {
  const sockets = new Set<Socket>();
  let count = 0;
  server.on('connection', (socket: Socket) => {
    count += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const destroyAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  return { count: () => count, destroyAll };
}

export async function startReceiver(
  tls: { key: string; cert: string },
  handler: Handler,
  host = '127.0.0.1',
  port = 0,
): Promise<TestReceiver> {
  const requests: ReceivedRequest[] = [];
  const server: Server = createHttpsServer({ key: tls.key, cert: tls.cert }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body,
        servername: (request.socket as TLSSocket).servername ?? false,
      });
      handler(request, response, body);
    });
  });
  // Count raw TCP connections, before any TLS handshake can fail.
  const tracked = track(server);
  server.listen(port, host);
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const origin = `https://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  return {
    port: address.port,
    host,
    origin,
    requests,
    connections: tracked.count,
    async close() {
      tracked.destroyAll();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A plain TCP listener that must not be contacted (a proxy from the environment, a redirect target). */
export async function startTrap(): Promise<{ port: number; connections(): number; close(): Promise<void> }> {
  const server = createNetServer((socket) => socket.destroy());
  const tracked = track(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    connections: tracked.count,
    async close() {
      tracked.destroyAll();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A minimal HTTP CONNECT proxy on loopback that records the targets it was asked for. */
export async function startConnectProxy(): Promise<{ url: string; targets: string[]; close(): Promise<void> }> {
  const targets: string[] = [];
  const server = createHttpServer((_request, response) => response.writeHead(405).end());
  server.on('connect', (request: IncomingMessage, client: Socket, head: Buffer) => {
    const target = request.url ?? '';
    targets.push(target);
    const separator = target.lastIndexOf(':');
    const upstream = netConnect(
      Number(target.slice(separator + 1)),
      target.slice(0, separator).replace(/^\[|\]$/g, ''),
      () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      },
    );
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  const tracked = track(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    targets,
    async close() {
      tracked.destroyAll();
      server.close();
      await once(server, 'close');
    },
  };
}
