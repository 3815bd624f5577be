import { createTestCertificate, type TestCertificate } from '@kyc/test-support';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AttemptRequest, createTransport, type TransportOptions } from '../src/index.js';
import { scriptedResolver } from './support/scripted-resolver.js';
import { startConnectProxy, startReceiver, startTrap, type TestReceiver } from './transport-receiver.js';

const HOST = 'receiver.test';

let cert: TestCertificate;
// The same port on two loopback addresses: one URL, two possible destinations.
let first: TestReceiver;
let second: TestReceiver;
let v6: TestReceiver;

const request = (port: number, host = HOST): AttemptRequest => ({
  url: `https://${host}:${port}/kyc`,
  headers: { authorization: 'Bearer ssrf-test-key-0123456789' },
  body: '{}',
});
const base = (extra: TransportOptions): TransportOptions => ({ tls: { ca: cert.cert }, deadlineMs: 5_000, ...extra });

beforeAll(async () => {
  // The certificate names only the host name: a dial that sent SNI for an IP would fail.
  cert = await createTestCertificate([HOST, 'localhost']);
  first = await startReceiver(cert, (_request, response) => response.writeHead(200).end('ok'), '127.0.0.1');
  second = await startReceiver(
    cert,
    (_request, response) => response.writeHead(200).end('second'),
    '127.0.0.2',
    first.port,
  );
  v6 = await startReceiver(cert, (_request, response) => response.writeHead(200).end('ok'), '::1');
});

afterAll(async () => {
  await Promise.all([first.close(), second.close(), v6.close()]);
});

describe('transport: the dial goes to the vetted address (no DNS rebinding)', () => {
  it('a name that turns from allowed to forbidden between attempts is blocked before any connection', async () => {
    const resolver = scriptedResolver(['127.0.0.1'], ['127.0.0.2']);
    const transport = createTransport(base({ resolver, allowPrivateNetworks: ['127.0.0.1/32'] }));
    const firstConnections = first.connections();
    const secondConnections = second.connections();
    try {
      const allowed = await transport.send(request(first.port));
      expect(allowed).toMatchObject({ outcome: 'delivered', dialedAddress: '127.0.0.1', responseSnippet: 'ok' });
      expect(first.requests.at(-1)?.servername).toBe(HOST);
      const rebound = await transport.send(request(first.port));
      expect(rebound.outcome).toBe('blocked_address');
      expect(rebound.dialedAddress).toBeUndefined();
      expect(rebound.errorMessage).toContain('127.0.0.2');
      expect(first.connections() - firstConnections).toBe(1);
      expect(second.connections() - secondConnections).toBe(0);
      // Resolved once per attempt, by the injected resolver only: the system resolver has never
      // heard of receiver.test, so any second lookup would have failed the first attempt.
      expect(resolver.asked).toEqual([HOST, HOST]);
    } finally {
      await transport.close();
    }
  });

  it('each attempt dials exactly the address it vetted, even with a pooled connection open elsewhere', async () => {
    const resolver = scriptedResolver(['127.0.0.1'], ['127.0.0.2'], ['127.0.0.1']);
    const transport = createTransport(base({ resolver, allowPrivateNetworks: ['127.0.0.0/8'] }));
    const before = second.requests.length;
    try {
      const results = [];
      for (let i = 0; i < 3; i += 1) results.push(await transport.send(request(first.port)));
      expect(results.map((result) => [result.outcome, result.dialedAddress, result.responseSnippet])).toEqual([
        ['delivered', '127.0.0.1', 'ok'],
        ['delivered', '127.0.0.2', 'second'],
        ['delivered', '127.0.0.1', 'ok'],
      ]);
      expect(second.requests.length - before).toBe(1);
    } finally {
      await transport.close();
    }
  });

  it('moves on to the next vetted address when one refuses the connection, and records the one dialled', async () => {
    const resolver = scriptedResolver(['127.0.0.3', '127.0.0.1'], ['127.0.0.3', '127.0.0.4']);
    const transport = createTransport(base({ resolver, allowPrivateNetworks: ['127.0.0.0/8'] }));
    try {
      expect(await transport.send(request(first.port))).toMatchObject({
        outcome: 'delivered',
        dialedAddress: '127.0.0.1',
      });
      const none = await transport.send(request(first.port));
      expect(none).toMatchObject({ outcome: 'connect_error', dialedAddress: '127.0.0.4' });
      expect(none.errorMessage).toContain('ECONNREFUSED');
      expect(none.errorMessage).toContain('could not connect to 127.0.0.3');
    } finally {
      await transport.close();
    }
  });

  it('mixed answers at send time block the attempt with no connection at all', async () => {
    const transport = createTransport(
      base({ resolver: scriptedResolver(['127.0.0.1', '10.0.0.1']), allowPrivateNetworks: ['127.0.0.0/8'] }),
    );
    const before = first.connections();
    const result = await transport.send(request(first.port));
    await transport.close();
    expect(result.outcome).toBe('blocked_address');
    expect(result.errorMessage).toContain('10.0.0.1');
    expect(first.connections()).toBe(before);
  });

  it('an AAAA-only answer is dialled over IPv6 with the host name as TLS server name', async () => {
    const transport = createTransport(base({ resolver: scriptedResolver(['::1']), allowPrivateNetworks: ['::1/128'] }));
    const result = await transport.send(request(v6.port));
    await transport.close();
    expect(result).toMatchObject({ outcome: 'delivered', dialedAddress: '::1' });
    expect(v6.requests.at(-1)?.servername).toBe(HOST);
  });

  it('NXDOMAIN at send time is dns_error with no connection', async () => {
    const nx = Object.assign(new Error('getaddrinfo ENOTFOUND receiver.test'), { code: 'ENOTFOUND' });
    const transport = createTransport(base({ resolver: scriptedResolver(nx), allowPrivateNetworks: ['127.0.0.0/8'] }));
    const result = await transport.send(request(first.port));
    await transport.close();
    expect(result).toMatchObject({ outcome: 'dns_error' });
    expect(result.errorMessage).toContain('ENOTFOUND');
  });

  it('localhost is loopback without DNS, and only with loopback allowed', async () => {
    const resolver = scriptedResolver(new Error('must not be asked'));
    const allowed = createTransport(base({ resolver, allowPrivateNetworks: ['127.0.0.0/8', '::1/128'] }));
    const result = await allowed.send(request(first.port, 'localhost'));
    await allowed.close();
    expect(result).toMatchObject({ outcome: 'delivered', dialedAddress: '127.0.0.1' });
    expect(first.requests.at(-1)?.servername).toBe('localhost');
    const refused = createTransport(base({ resolver }));
    expect((await refused.send(request(first.port, 'localhost'))).outcome).toBe('blocked_address');
    await refused.close();
    expect(resolver.asked).toEqual([]);
  });
});

describe('transport: proxies', () => {
  const names = [
    'HTTPS_PROXY',
    'https_proxy',
    'HTTP_PROXY',
    'http_proxy',
    'ALL_PROXY',
    'all_proxy',
    'NO_PROXY',
    'no_proxy',
  ];
  const saved = new Map(names.map((name) => [name, process.env[name]]));
  afterEach(() => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('ignores proxy environment variables: the proxy listener gets no connection', async () => {
    const trap = await startTrap();
    for (const name of names.slice(0, 6)) process.env[name] = `http://127.0.0.1:${trap.port}`;
    delete process.env.NO_PROXY;
    delete process.env.no_proxy;
    const transport = createTransport(base({ allowPrivateNetworks: ['127.0.0.0/8', '::1/128'] }));
    try {
      const result = await transport.send(request(first.port, 'localhost'));
      expect(result).toMatchObject({ outcome: 'delivered', dialedAddress: '127.0.0.1' });
      expect(trap.connections()).toBe(0);
    } finally {
      await transport.close();
      await trap.close();
    }
  });

  it('uses an explicit proxy (CONNECT tunnel), still vetting the URL first', async () => {
    const proxy = await startConnectProxy();
    const transport = createTransport(base({ proxy: proxy.url, allowPrivateNetworks: ['127.0.0.0/8', '::1/128'] }));
    try {
      const result = await transport.send(request(first.port, 'localhost'));
      expect(result).toMatchObject({ outcome: 'delivered', responseSnippet: 'ok' });
      expect(proxy.targets).toEqual([`localhost:${first.port}`]);
      const blocked = await transport.send(request(first.port, '10.0.0.1'));
      expect(blocked.outcome).toBe('blocked_address');
      expect(proxy.targets).toHaveLength(1);
    } finally {
      await transport.close();
      await proxy.close();
    }
  });
});
