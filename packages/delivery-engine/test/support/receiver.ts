import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { HEADERS } from '@kyc/contracts';
import { createContractRecorder, createTestCertificate, type TestCertificate } from '@kyc/test-support';
import { afterAll } from 'vitest';

/**
 * Every delivery a test receiver gets is judged against the webhook of the published OpenAPI
 * document (`@kyc/contracts/openapi.json`): headers and body. A test file that starts a
 * receiver fails after its tests if any delivery broke the contract.
 */
export const contract = createContractRecorder();
afterAll(() => contract.assertConforms());

function toHeaders(raw: IncomingMessage['headers']): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
  }
  return headers;
}

/** One request the receiver saw. */
export interface ReceivedRequest {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  readonly at: number;
  /** The loopback address the request arrived on (the address the sender dialled). */
  readonly localAddress: string;
}

/** How the receiver answers: a status, a status after a pause, or `'hang'` to never answer. */
export type Answer = number | 'hang' | { readonly status: number; readonly delayMs: number };

export interface TestReceiver {
  readonly url: string;
  readonly origin: string;
  readonly port: number;
  readonly requests: ReceivedRequest[];
  /** Requests per `Webhook-Id`. */
  readonly counts: Map<string, number>;
  /** Resolves when `n` requests in total have arrived. */
  waitFor(n: number): Promise<void>;
  close(): Promise<void>;
}

let certificate: Promise<TestCertificate> | undefined;
/** The name a test resolver may map to any loopback address; the certificate covers it. */
export const TEST_HOST = 'receiver.test';

/** One self-signed loopback certificate per test file (generation costs ~100 ms). */
export const testCertificate = (): Promise<TestCertificate> =>
  (certificate ??= createTestCertificate(['localhost', '127.0.0.1', '::1', TEST_HOST]));

/** Options every engine under test needs to reach a loopback receiver. */
export async function loopbackOptions(): Promise<{
  allowPrivateNetworks: readonly string[];
  tls: { ca: string };
}> {
  return { allowPrivateNetworks: ['127.0.0.0/8', '::1/128'], tls: { ca: (await testCertificate()).cert } };
}

/**
 * A real HTTPS server on 127.0.0.1 that records every request. `answer` picks the response
 * from the request (default 200). With `hosts`, it listens on the same port of every one of
 * those loopback addresses, and each request records the one it arrived on.
 */
export async function startReceiver(
  answer: (request: ReceivedRequest) => Answer = () => 200,
  options: { readonly hosts?: readonly string[] } = {},
): Promise<TestReceiver> {
  const { key, cert } = await testCertificate();
  const requests: ReceivedRequest[] = [];
  const counts = new Map<string, number>();
  const waiters: { n: number; resolve: () => void }[] = [];
  const hanging = new Set<ServerResponse>();
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received: ReceivedRequest = {
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
        localAddress: req.socket.localAddress ?? '',
      };
      requests.push(received);
      contract.webhook({ method: req.method ?? '', headers: toHeaders(req.headers), body: received.body });
      const id = String(req.headers[HEADERS.webhookId]);
      counts.set(id, (counts.get(id) ?? 0) + 1);
      for (const waiter of waiters.filter((w) => requests.length >= w.n)) waiter.resolve();
      const status = answer(received);
      if (status === 'hang') {
        hanging.add(res);
        return;
      }
      const respond = (code: number) => {
        res.writeHead(code, code >= 300 && code < 400 ? { location: '/elsewhere' } : {});
        res.end(code === 200 ? 'ok' : `answer ${code}`);
      };
      if (typeof status === 'number') respond(status);
      else setTimeout(() => respond(status.status), status.delayMs);
    });
  };
  const [first = '127.0.0.1', ...others] = options.hosts ?? ['127.0.0.1'];
  const servers: Server[] = [];
  const listen = async (host: string, port: number) => {
    const server = createServer({ key, cert }, handle);
    servers.push(server);
    server.listen(port, host);
    await once(server, 'listening');
    return (server.address() as AddressInfo).port;
  };
  const port = await listen(first, 0);
  for (const host of others) await listen(host, port);
  return {
    url: `https://${first}:${port}/hook`,
    origin: `https://${first}:${port}`,
    port,
    requests,
    counts,
    waitFor: (n) =>
      requests.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve })),
    close: async () => {
      for (const res of hanging) res.destroy();
      await Promise.all(
        servers.map(async (server) => {
          server.closeAllConnections();
          server.close();
          await once(server, 'close').catch(() => undefined);
        }),
      );
    },
  };
}
