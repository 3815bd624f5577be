import { createTestCertificate } from '@kyc/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkEndpoint, formatCheckReport } from '../src/index.js';
import { listen } from '../src/server/listen.js';
import { AUTH_KEY } from './helpers.js';

let certificate: Awaited<ReturnType<typeof createTestCertificate>>;
const servers: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  certificate = await createTestCertificate(['127.0.0.1']);
});
afterAll(async () => {
  for (const server of servers) await server.close();
});

async function endpoint(answer: (request: Request) => Promise<Response> | Response) {
  const server = await listen(answer, { port: 0, host: '127.0.0.1', tls: certificate });
  servers.push(server);
  return `${server.url}/hook`;
}

const authorized = (request: Request) => request.headers.get('authorization') === `Bearer ${AUTH_KEY}`;

describe('checkEndpoint', () => {
  it('fails an endpoint that answers 202 (only 200 counts)', async () => {
    const url = await endpoint((request) => new Response(null, { status: authorized(request) ? 202 : 401 }));
    const report = await checkEndpoint(url, { authKey: AUTH_KEY, ca: [certificate.cert], allowLoopback: true });
    const verdicts = Object.fromEntries(report.results.map((r) => [r.id, r.verdict]));
    expect(verdicts).toMatchObject({
      'rejects-missing-key': 'pass',
      'rejects-wrong-key': 'pass',
      'accepts-v1': 'fail',
    });
    expect(report.ok).toBe(false);
    expect(formatCheckReport(report)).toMatch(/✖ accepts-v1 .*HTTP 202/);
  });

  it('says what to fix, not only what failed, for a receiver that answers 204 to everything', async () => {
    const url = await endpoint(() => new Response(null, { status: 204 }));
    const report = await checkEndpoint(url, { authKey: AUTH_KEY, ca: [certificate.cert], allowLoopback: true });
    const failed = report.results.filter((r) => r.verdict === 'fail');
    expect(failed.map((r) => r.id)).toEqual([
      'rejects-missing-key',
      'rejects-wrong-key',
      'accepts-v1',
      'accepts-status',
      'tolerates-unknown-fields',
      'acknowledges-duplicate',
    ]);
    for (const result of failed) expect(result.fix).toBeTruthy();
    const byId = Object.fromEntries(failed.map((r) => [r.id, r]));
    expect(byId['accepts-v1']?.fix).toMatch(/only 200 counts as delivered.*return 200 explicitly/);
    expect(byId['rejects-missing-key']?.fix).toMatch(/without an Authorization header.*answer 401/);
    expect(byId['rejects-wrong-key']?.hint).toMatch(/Auth Key and the format of the Authorization header \(spec §7\)/);
    // The first delivery of that event already got 204: the repeat fails for the same cause, not as a duplicate.
    expect(byId['acknowledges-duplicate']?.fix).toMatch(/answered 204, but only 200 counts/);
    const printed = formatCheckReport(report);
    expect(printed).toMatch(/✖ accepts-v1 .*HTTP 204.*\n\s+fix: Your endpoint answered 204, but only 200 counts/);
    expect(printed).toMatch(/\n\s+see: Authentication failures/);
    expect(printed).not.toContain(AUTH_KEY);
  });

  it('gives each check the advice of what actually failed: a refused key is about the Authorization header', async () => {
    // An endpoint that refuses the right key, as one comparing against another key does.
    const url = await endpoint(() => new Response(null, { status: 401 }));
    const report = await checkEndpoint(url, { authKey: AUTH_KEY, ca: [certificate.cert], allowLoopback: true });
    const failed = Object.fromEntries(report.results.filter((r) => r.verdict === 'fail').map((r) => [r.id, r]));
    expect(Object.keys(failed)).toEqual([
      'accepts-v1',
      'accepts-status',
      'tolerates-unknown-fields',
      'acknowledges-duplicate',
    ]);
    for (const result of Object.values(failed)) {
      expect(result.fix).toMatch(/refused the credentials \(401\).*"Authorization: Bearer <Auth Key>"/);
      expect(result.fix).not.toMatch(/duplicate|repeated|already processed|unknown fields/i);
      expect(result.hint).toMatch(/format of the Authorization header/);
    }
  });

  it('blames duplicates only when the first delivery of the event was accepted', async () => {
    const seen = new Set<string>();
    const url = await endpoint(async (request) => {
      if (!authorized(request)) return new Response(null, { status: 401 });
      const id = request.headers.get('webhook-id') ?? '';
      if (seen.has(id)) return new Response('already seen', { status: 409 });
      seen.add(id);
      return new Response('ok');
    });
    const report = await checkEndpoint(url, { authKey: AUTH_KEY, ca: [certificate.cert], allowLoopback: true });
    const duplicate = report.results.find((r) => r.id === 'acknowledges-duplicate');
    expect(duplicate).toMatchObject({ verdict: 'fail', fix: expect.stringMatching(/already processed, answer 200/) });
  });

  it('fails an endpoint slower than the deadline', async () => {
    const url = await endpoint(async (request) => {
      if (!authorized(request)) return new Response(null, { status: 401 });
      await new Promise((resolve) => setTimeout(resolve, 600));
      return new Response('ok');
    });
    const report = await checkEndpoint(url, {
      authKey: AUTH_KEY,
      ca: [certificate.cert],
      allowLoopback: true,
      deadlineMs: 200,
    });
    expect(report.results.find((r) => r.id === 'accepts-v1')).toMatchObject({
      verdict: 'fail',
      detail: expect.stringMatching(/timeout/),
    });
  });

  it('fails an endpoint that rejects unknown fields', async () => {
    const url = await endpoint(async (request) => {
      if (!authorized(request)) return new Response(null, { status: 401 });
      const body = (await request.json()) as Record<string, unknown>;
      return new Response(null, { status: 'riskSignals' in body ? 400 : 200 });
    });
    const report = await checkEndpoint(url, { authKey: AUTH_KEY, ca: [certificate.cert], allowLoopback: true });
    const failed = report.results.filter((r) => r.verdict === 'fail').map((r) => r.id);
    expect(failed).toEqual(['tolerates-unknown-fields']);
  });

  it('refuses a loopback endpoint unless allowed, and a plain-HTTP URL, before sending anything', async () => {
    let requests = 0;
    const url = await endpoint(() => {
      requests++;
      return new Response('ok');
    });
    const blocked = await checkEndpoint(url, { authKey: AUTH_KEY, ca: [certificate.cert] });
    expect(blocked.results.map((r) => [r.id, r.verdict]).slice(0, 3)).toEqual([
      ['auth-key', 'pass'],
      ['https-url', 'fail'],
      ['reachable', 'skip'],
    ]);
    expect(blocked.results.slice(2).every((r) => r.verdict === 'skip')).toBe(true);
    // The skipped checks say why: nothing was tried, so "cannot be reached" would be untrue.
    expect(blocked.results[2]?.detail).toBe('skipped: nothing is sent to a URL the service would refuse');
    expect(blocked.results[1]?.fix).toMatch(/run the check again with --allow-loopback/);
    const plain = await checkEndpoint(url.replace('https:', 'http:'), { authKey: AUTH_KEY, allowLoopback: true });
    expect(plain.results.find((r) => r.id === 'https-url')).toMatchObject({
      verdict: 'fail',
      detail: expect.stringMatching(/https/),
      fix: expect.stringMatching(/kyc-sandbox listen --forward-to <this URL>/),
    });
    expect(requests).toBe(0);
  });

  it('tells an endpoint nobody answers from one with a bad certificate', async () => {
    const closed = await listen(() => new Response('ok'), { port: 0, host: '127.0.0.1', tls: certificate });
    await closed.close();
    const down = await checkEndpoint(`${closed.url}/hook`, { authKey: AUTH_KEY, allowLoopback: true });
    expect(down.results.find((r) => r.id === 'reachable')).toMatchObject({
      verdict: 'fail',
      detail: expect.stringMatching(/connect_error/),
    });
    expect(down.results.find((r) => r.id === 'tls-certificate')).toMatchObject({
      verdict: 'skip',
      detail: 'skipped: the endpoint cannot be reached',
    });
    const untrusted = await checkEndpoint(await endpoint(() => new Response('ok')), {
      authKey: AUTH_KEY,
      allowLoopback: true,
    });
    expect(untrusted.results.find((r) => r.id === 'reachable')?.verdict).toBe('pass');
    expect(untrusted.results.find((r) => r.id === 'tls-certificate')).toMatchObject({
      verdict: 'fail',
      detail: expect.stringMatching(/tls_error/),
    });
    expect(untrusted.results.find((r) => r.id === 'accepts-v1')?.detail).toBe(
      'skipped: no request gets past the failed TLS handshake',
    );
  });

  it('fails a predictable Auth Key without ever printing it', async () => {
    const weak = 'password12345678';
    const url = await endpoint((request) => new Response(null, { status: authorized(request) ? 200 : 401 }));
    const report = await checkEndpoint(url, { authKey: weak, ca: [certificate.cert], allowLoopback: true });
    expect(report.results[0]).toMatchObject({ id: 'auth-key', verdict: 'fail' });
    expect(report.ok).toBe(false);
    expect(formatCheckReport(report)).not.toContain(weak);
  });

  it('says when a repeated delivery was recognised as a duplicate, and when only the logs can tell', async () => {
    const seen = new Set<string>();
    const url = await endpoint(async (request) => {
      if (!authorized(request)) return new Response(null, { status: 401 });
      const id = request.headers.get('webhook-id') ?? '';
      const duplicate = seen.has(id);
      seen.add(id);
      return Response.json({ received: true, duplicate });
    });
    const aware = await checkEndpoint(url, { authKey: AUTH_KEY, ca: [certificate.cert], allowLoopback: true });
    expect(aware.ok).toBe(true);
    expect(aware.results.at(-1)).toMatchObject({
      id: 'acknowledges-duplicate',
      verdict: 'pass',
      detail: expect.stringMatching(/answer says duplicate/),
    });
    const plain = await endpoint((request) => new Response('ok', { status: authorized(request) ? 200 : 401 }));
    const silent = await checkEndpoint(plain, { authKey: AUTH_KEY, ca: [certificate.cert], allowLoopback: true });
    expect(silent.results.at(-1)).toMatchObject({
      verdict: 'pass',
      detail: expect.stringMatching(/only your logs can tell/),
    });
  });
});
