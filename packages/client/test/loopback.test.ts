import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sampleSessionDetails, sessionDetailsUrl } from '@kyc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  KycAbortError,
  KycApiError,
  KycAuthenticationError,
  KycClient,
  KycConnectionError,
  KycNotFoundError,
  KycTimeoutError,
} from '../src/index.js';

// ky + the runtime's real fetch (undici) against a real node:http server on loopback: what msw
// cannot show (sockets, real aborts of a stalled body, refused connections, redirects).
const USERNAME = 'acme';
const PASSWORD = 'loopback-pw-4b7e1c9a';
const EXPECTED_AUTH = `Basic ${Buffer.from(`${USERNAME}:${PASSWORD}`).toString('base64')}`;

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  body: string;
}

let server: Server;
let baseUrl: string;
const seen: Seen[] = [];
let flakyCount = 0;

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  response.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req-${seen.length}`, ...headers });
  response.end(JSON.stringify(body));
}

async function handle(request: IncomingMessage, response: ServerResponse) {
  const body = await readBody(request);
  const url = request.url ?? '';
  seen.push({ method: request.method ?? '', url, authorization: request.headers.authorization, body });
  if (request.headers.authorization !== EXPECTED_AUTH) {
    json(response, 401, { error: { code: 'UNAUTHORIZED', message: 'wrong credentials' } });
    return;
  }
  const prefix = '/prefix/api/v1/kyc';
  if (request.method === 'POST' && url === `${prefix}/session/finish`) {
    const { sessionId } = JSON.parse(body) as { sessionId: string };
    json(response, 200, {
      ...sampleSessionDetails,
      id: sessionId,
      detailsURL: sessionDetailsUrl(`${baseUrl}`, sessionId),
    });
    return;
  }
  if (url === `${prefix}/session/flaky`) {
    flakyCount += 1;
    if (flakyCount % 3 !== 0) {
      json(response, 503, { error: { code: 'INTERNAL', message: 'warming up' } }, { 'retry-after': '0' });
      return;
    }
  }
  if (url === `${prefix}/session/slow-headers`) return; // never answers; the client must give up
  if (url === `${prefix}/session/slow-body`) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"id": "slow-body", '); // …and never finishes the body
    return;
  }
  if (url === `${prefix}/session/redirect`) {
    response.writeHead(302, { location: `${baseUrl}/api/v1/kyc/session/elsewhere` });
    response.end();
    return;
  }
  const match = /^\/prefix\/api\/v1\/kyc\/session\/([^/]+)$/.exec(url);
  if (request.method === 'GET' && match?.[1] !== undefined && match[1] !== 'missing') {
    json(response, 200, { ...sampleSessionDetails, id: decodeURIComponent(match[1]), extra: true });
    return;
  }
  json(response, 404, { error: { code: 'SESSION_NOT_FOUND', message: 'no such session' } });
}

function client(overrides: Partial<ConstructorParameters<typeof KycClient>[0]> = {}) {
  return new KycClient({ baseUrl: `${baseUrl}/prefix/`, username: USERNAME, password: PASSWORD, ...overrides });
}

beforeAll(async () => {
  server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
});

describe('KycClient over real HTTP on loopback', () => {
  it('finishes a session: POST, JSON body, Basic auth, prefix kept', async () => {
    seen.length = 0;
    const details = await client().finishSession('sess_loop_1');
    expect(details).toMatchObject({ id: 'sess_loop_1', state: 'FINISHED' });
    expect(seen).toEqual([
      {
        method: 'POST',
        url: '/prefix/api/v1/kyc/session/finish',
        authorization: EXPECTED_AUTH,
        body: JSON.stringify({ sessionId: 'sess_loop_1' }),
      },
    ]);
  });

  it('reads a session with an encoded id and keeps unknown fields', async () => {
    seen.length = 0;
    const details = await client().getSession('a/b ü');
    expect(details).toMatchObject({ id: 'a/b ü', extra: true });
    expect(seen[0]?.url).toBe(`/prefix/api/v1/kyc/session/${encodeURIComponent('a/b ü')}`);
  });

  it('sends through an injected fetch, with a signal that still bounds the attempt', async () => {
    const seenByFetch: string[] = [];
    const injected: typeof fetch = (input, init) => {
      // ky hands fetch a `Request` that carries the attempt's signal.
      expect(input).toBeInstanceOf(Request);
      const request = input as Request;
      seenByFetch.push(`${request.method} ${request.url}`);
      expect(request.signal).toBeInstanceOf(AbortSignal);
      return fetch(input, init);
    };
    const custom = client({ fetch: injected, timeoutMs: 100, maxRetries: 0 });
    await expect(custom.getSession('s-7')).resolves.toMatchObject({ id: 's-7' });
    expect(seenByFetch).toEqual([`GET ${baseUrl}/prefix/api/v1/kyc/session/s-7`]);
    await expect(custom.getSession('slow-headers')).rejects.toMatchObject({ name: 'KycTimeoutError', kind: 'attempt' });
  });

  it('follows a detailsURL on the configured service', async () => {
    const details = await client().getSessionByDetailsUrl(`${baseUrl}/prefix/api/v1/kyc/session/s-42`);
    expect(details.id).toBe('s-42');
  });

  it('maps 404 and 401 to their classes with the request id', async () => {
    await expect(client().getSession('missing')).rejects.toSatisfy(
      (error) =>
        error instanceof KycNotFoundError && error.code === 'SESSION_NOT_FOUND' && /^req-/.test(error.requestId ?? ''),
    );
    await expect(client({ password: 'wrong-password' }).getSession('x')).rejects.toBeInstanceOf(KycAuthenticationError);
  });

  it('retries 503 with Retry-After: 0 and succeeds on the third attempt (real timers)', async () => {
    flakyCount = 0;
    const attempts: number[] = [];
    const details = await client({ onRetry: (event) => attempts.push(event.attempt) }).getSession('flaky');
    expect(details.id).toBe('flaky');
    expect(attempts).toEqual([1, 2]);
  });

  it('times out an attempt that gets no headers, and one whose body stalls', async () => {
    const fast = client({ timeoutMs: 100, maxRetries: 1, random: () => 0 });
    await expect(fast.getSession('slow-headers')).rejects.toMatchObject({ name: 'KycTimeoutError', kind: 'attempt' });
    await expect(fast.getSession('slow-body')).rejects.toBeInstanceOf(KycTimeoutError);
  });

  it('stops at the overall deadline', async () => {
    const started = Date.now();
    const error = await client({ timeoutMs: 5000, deadlineMs: 150 })
      .getSession('slow-headers')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'KycTimeoutError', kind: 'deadline' });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('aborts via the signal', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expect(client().getSession('slow-headers', { signal: controller.signal })).rejects.toBeInstanceOf(
      KycAbortError,
    );
  });

  it('does not follow a redirect', async () => {
    seen.length = 0;
    const error = await client()
      .getSession('redirect')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KycApiError);
    expect(error).toMatchObject({ status: 302 });
    expect(seen).toHaveLength(1);
  });

  it('reports a refused connection as KycConnectionError after retrying', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const { port } = closed.address() as AddressInfo;
    closed.close();
    await once(closed, 'close');
    const attempts: number[] = [];
    const error = await new KycClient({
      baseUrl: `http://127.0.0.1:${port}`,
      username: USERNAME,
      password: PASSWORD,
      random: () => 0,
      onRetry: (event) => attempts.push(event.attempt),
    })
      .getSession('x')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KycConnectionError);
    // Node and Bun name the code; Deno says it only in words.
    expect((error as Error).message).toMatch(/ECONNREFUSED|Connection refused/);
    expect(attempts).toEqual([1, 2]);
  });
});
