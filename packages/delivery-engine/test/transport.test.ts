import { once } from 'node:events';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RESPONSE_SNIPPET_MAX_BYTES } from '@kyc/contracts';
import { createTestCertificate, type TestCertificate } from '@kyc/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AttemptRequest,
  createTransport,
  DeliveryEngineError,
  sendAttempt,
  type Transport,
  type TransportOptions,
} from '../src/index.js';
import { startReceiver, startTrap, type TestReceiver } from './transport-receiver.js';

const AUTH_VALUE = 'Bearer tr4nsport-test-k3y-9f8e7d6c';
const LOOPBACK = ['127.0.0.0/8', '::1/128'];

let cert: TestCertificate;
let receiver: TestReceiver;
let options: TransportOptions;
let transport: Transport;

const post = (path: string, extra: Partial<AttemptRequest> = {}): AttemptRequest => ({
  url: `${receiver.origin}${path}`,
  headers: { authorization: AUTH_VALUE, 'content-type': 'application/json' },
  body: '{"sessionId":"s-1"}',
  ...extra,
});

beforeAll(async () => {
  cert = await createTestCertificate(['localhost', '127.0.0.1', '::1']);
  receiver = await startReceiver(cert, (request, response, body) => {
    const url = new URL(request.url ?? '/', 'https://x');
    const status = Number(url.searchParams.get('status') ?? 200);
    if (url.pathname === '/echo') {
      response
        .writeHead(200, { 'content-type': 'text/plain' })
        .end(`auth=${request.headers.authorization} body=${body}`);
    } else if (url.pathname === '/redirect') {
      response.writeHead(status, { location: url.searchParams.get('to') ?? '/' }).end('moved');
    } else if (url.pathname === '/big') {
      // 1 MiB, written in pieces: the client must stop after the cap.
      response.writeHead(200);
      const piece = Buffer.alloc(16 * 1024, 'a');
      for (let i = 0; i < 64; i += 1) response.write(piece);
      response.end();
    } else if (url.pathname === '/invalid-utf8') {
      response.writeHead(200).end(Buffer.from([0x6f, 0x6b, 0xff, 0xfe, 0x21]));
    } else if (url.pathname === '/slow-headers') {
      // Never answers: only the deadline ends this.
    } else if (url.pathname === '/slow-body') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('partial');
    } else if (url.pathname === '/reset') {
      request.socket.destroy();
    } else if (url.pathname === '/reset-mid-body') {
      response.writeHead(200, { 'content-length': '1000' });
      response.write('only part', () => request.socket.destroy());
    } else {
      response.writeHead(status, { 'content-type': 'text/plain' }).end(`status ${status}`);
    }
  });
  options = { tls: { ca: cert.cert }, allowPrivateNetworks: LOOPBACK, deadlineMs: 5_000 };
  transport = createTransport(options);
});

afterAll(async () => {
  await transport.close();
  await receiver.close();
});

describe('transport: statuses', () => {
  it.each([
    [200, 'delivered'],
    [201, 'unexpected_2xx'],
    [202, 'unexpected_2xx'],
    [204, 'unexpected_2xx'],
    [299, 'unexpected_2xx'],
    [301, 'redirect'],
    [302, 'redirect'],
    [303, 'redirect'],
    [307, 'redirect'],
    [308, 'redirect'],
    [400, 'client_error'],
    [401, 'client_error'],
    [404, 'client_error'],
    [410, 'client_error'],
    [429, 'client_error'],
    [500, 'server_error'],
    [502, 'server_error'],
    [503, 'server_error'],
    [504, 'server_error'],
  ])('status %i → %s', async (status, outcome) => {
    const result = await transport.send(post(`/status?status=${status}`));
    expect(result).toMatchObject({ outcome, status, dialedAddress: '127.0.0.1' });
    if (status !== 204) expect(result.responseSnippet).toBe(`status ${status}`);
  });

  it('POSTs exactly the given body and headers and records latency', async () => {
    const before = receiver.requests.length;
    const result = await transport.send(post('/echo', { body: '{"x":"é"}' }));
    expect(result.outcome).toBe('delivered');
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
    expect(result.latencyMs).toBeLessThan(5_000);
    const seen = receiver.requests[before];
    expect(seen).toMatchObject({ method: 'POST', url: '/echo', body: '{"x":"é"}' });
    expect(seen?.headers['content-type']).toBe('application/json');
    expect(seen?.headers.authorization).toBe(AUTH_VALUE);
  });

  it('redacts the Authorization value from a snippet that echoes it', async () => {
    const result = await transport.send(post('/echo'));
    expect(result.responseSnippet).toBe('auth=[redacted] body={"sessionId":"s-1"}');
    expect(JSON.stringify(result)).not.toContain('tr4nsport-test-k3y');
  });

  it('reuses pooled connections for consecutive attempts to the same endpoint', async () => {
    const own = await startReceiver(cert, (_request, response) => response.writeHead(200).end('ok'));
    const local = createTransport(options);
    try {
      for (let i = 0; i < 10; i += 1)
        expect((await local.send({ ...post('/'), url: `${own.origin}/` })).outcome).toBe('delivered');
      // undici's pool may open a second socket while the first is still being marked free.
      expect(own.connections()).toBeLessThanOrEqual(2);
    } finally {
      await local.close();
      await own.close();
    }
  });
});

describe('transport: redirects are never followed', () => {
  it.each([301, 302, 307, 308])('a %i to a second listener opens no connection to it', async (status) => {
    const target = await startTrap();
    try {
      const to = `https://127.0.0.1:${target.port}/stolen`;
      const result = await transport.send(post(`/redirect?status=${status}&to=${encodeURIComponent(to)}`));
      expect(result).toMatchObject({ outcome: 'redirect', status, responseSnippet: 'moved' });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(target.connections()).toBe(0);
    } finally {
      await target.close();
    }
  });
});

describe('transport: one deadline', () => {
  const quick = () => createTransport({ ...options, deadlineMs: 300 });

  it('times out when headers never come', async () => {
    const local = quick();
    const result = await local.send(post('/slow-headers'));
    await local.close();
    expect(result.outcome).toBe('timeout');
    expect(result.status).toBeUndefined();
    expect(result.latencyMs).toBeGreaterThanOrEqual(250);
    expect(result.latencyMs).toBeLessThan(3_000);
    expect(result.errorMessage).toContain('deadline of 300 ms');
  });

  it('times out when the body never ends, even after a 200', async () => {
    const local = quick();
    const result = await local.send(post('/slow-body'));
    await local.close();
    expect(result).toMatchObject({ outcome: 'timeout', status: 200 });
    expect(result.latencyMs).toBeLessThan(3_000);
    expect(result.errorMessage).toContain('while reading the body');
  });

  it('covers DNS: a resolver that never answers is a timeout', async () => {
    const local = createTransport({ ...options, deadlineMs: 200, resolver: { resolve: () => new Promise(() => {}) } });
    const result = await local.send({ ...post('/'), url: `https://hooks.test:${receiver.port}/` });
    await local.close();
    expect(result.outcome).toBe('timeout');
    expect(result.latencyMs).toBeLessThan(3_000);
  });

  it('stops at once when the engine aborts (options.signal) or the caller aborts', async () => {
    const stop = new AbortController();
    const local = createTransport({ ...options, signal: stop.signal });
    const pending = local.send(post('/slow-headers'));
    setTimeout(() => stop.abort(), 50);
    const result = await pending;
    expect(result.outcome).toBe('timeout');
    expect(result.errorMessage).toContain('engine is stopping');
    const call = new AbortController();
    call.abort();
    expect((await transport.send(post('/'), call.signal)).outcome).toBe('timeout');
    await local.close();
  });
});

describe('transport: network failures', () => {
  it('a reset before the answer is connection_reset', async () => {
    expect((await transport.send(post('/reset'))).outcome).toBe('connection_reset');
  });

  it('a reset in the middle of the body is connection_reset, with the status kept', async () => {
    expect(await transport.send(post('/reset-mid-body'))).toMatchObject({ outcome: 'connection_reset', status: 200 });
  });

  it('a closed port is connect_error', async () => {
    const closed = await startTrap();
    await closed.close();
    const result = await transport.send({ ...post('/'), url: `https://127.0.0.1:${closed.port}/` });
    expect(result).toMatchObject({ outcome: 'connect_error', dialedAddress: '127.0.0.1' });
    expect(result.errorMessage).toContain('ECONNREFUSED');
  });

  it('an untrusted certificate is tls_error (only options.tls.ca adds trust)', async () => {
    const result = await sendAttempt(post('/'), { allowPrivateNetworks: LOOPBACK, deadlineMs: 5_000 });
    expect(result.outcome).toBe('tls_error');
    expect(result.errorMessage).toMatch(/self[- ]signed/i);
  });

  it('a listener that does not speak TLS is tls_error', async () => {
    const plain = createHttpServer((_request, response) => response.end('plain http'));
    plain.listen(0, '127.0.0.1');
    await once(plain, 'listening');
    const { port } = plain.address() as AddressInfo;
    try {
      const result = await transport.send({ ...post('/'), url: `https://127.0.0.1:${port}/` });
      expect(result.outcome).toBe('tls_error');
    } finally {
      plain.close();
    }
  });

  it('a certificate for another host name is tls_error', async () => {
    const other = await createTestCertificate(['other.example']);
    const wrong = await startReceiver(other, (_request, response) => response.writeHead(200).end());
    try {
      const result = await sendAttempt(
        { ...post('/'), url: `${wrong.origin}/` },
        { tls: { ca: other.cert }, allowPrivateNetworks: LOOPBACK, deadlineMs: 5_000 },
      );
      expect(result.outcome).toBe('tls_error');
      expect(result.errorMessage).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
      expect(wrong.requests).toHaveLength(0);
    } finally {
      await wrong.close();
    }
  });
});

describe('transport: response body cap', () => {
  it(`reads at most ${RESPONSE_SNIPPET_MAX_BYTES} bytes of a 1 MiB answer`, async () => {
    const result = await transport.send(post('/big'));
    expect(result.outcome).toBe('delivered');
    expect(Buffer.byteLength(result.responseSnippet ?? '')).toBe(RESPONSE_SNIPPET_MAX_BYTES);
  });

  it('decodes invalid UTF-8 leniently', async () => {
    expect((await transport.send(post('/invalid-utf8'))).responseSnippet).toBe('ok\uFFFD\uFFFD!');
  });
});

describe('transport: bad input never throws', () => {
  it.each([
    ['not a url', 'invalid_url'],
    ['http://127.0.0.1/', 'invalid_url'],
    ['https://user:pw@127.0.0.1/', 'invalid_url'],
    ['https://169.254.169.254/latest/meta-data/', 'blocked_address'],
    ['https://10.0.0.1/', 'blocked_address'],
  ])('%s → %s without a connection', async (url, outcome) => {
    const result = await transport.send({ ...post('/'), url });
    expect(result.outcome).toBe(outcome);
    expect(result.dialedAddress).toBeUndefined();
    expect(result.errorMessage).not.toContain('pw');
  });

  it('answers a missing request with invalid_url', async () => {
    expect((await transport.send(undefined as unknown as AttemptRequest)).outcome).toBe('invalid_url');
  });

  it('refuses bad options with a typed error (createTransport) or an outcome (sendAttempt)', async () => {
    for (const bad of [
      { deadlineMs: 0 },
      { deadlineMs: Number.NaN },
      { allowPrivateNetworks: ['nope'] },
      { tls: { ca: 'not a pem' } },
      { proxy: 'not a url' },
    ]) {
      expect(() => createTransport(bad)).toThrow(DeliveryEngineError);
      const result = await sendAttempt(post('/'), bad);
      expect(result.outcome).toBe('invalid_url');
      expect(result.errorMessage).toContain('transport options are invalid');
    }
  });

  it('refuses to send after close', async () => {
    const local = createTransport(options);
    await local.close();
    expect((await local.send(post('/'))).outcome).toBe('connect_error');
  });
});
