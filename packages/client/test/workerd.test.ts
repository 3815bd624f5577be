import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { sampleSessionDetails } from '@kyc/contracts';
import { bundleWorker, startWorker } from '@kyc/test-support/workerd';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The README says the client runs on Cloudflare Workers: here it does, in workerd (through
// Miniflare), bundled as wrangler would bundle a Worker, calling a real node:http service on
// loopback with workerd's own fetch.
const PASSWORD = 'workerd-pw-5c1e9a7b';
const EXPECTED_AUTH = `Basic ${btoa(`acme:${PASSWORD}`)}`;
const seen: string[] = [];
let flaky = 0;
let server: Server;
let miniflare: Awaited<ReturnType<typeof startWorker>>['miniflare'] | undefined;
let workerUrl: URL;

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    const url = request.url ?? '';
    seen.push(`${request.method} ${url}`);
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(JSON.stringify(body));
    };
    if (request.headers.authorization !== EXPECTED_AUTH)
      return answer(401, { error: { code: 'UNAUTHORIZED', message: 'no' } });
    if (url.endsWith('/hang')) return; // never answers
    if (url.endsWith('/missing'))
      return answer(404, { error: { code: 'SESSION_NOT_FOUND', message: 'no such session' } });
    if (url.endsWith('/flaky') && ++flaky < 3)
      return answer(503, { error: { code: 'UNAVAILABLE', message: 'later' } }, { 'retry-after': '0' });
    if (url.endsWith('/session/finish')) return answer(200, { ...sampleSessionDetails, id: 'sess_workerd_1' });
    const id = decodeURIComponent(url.slice(url.lastIndexOf('/') + 1));
    return answer(200, { ...sampleSessionDetails, id });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const script = await bundleWorker(fileURLToPath(new URL('./workerd/worker.ts', import.meta.url)));
  ({ miniflare, url: workerUrl } = await startWorker({
    script,
    compatibilityDate: '2026-07-01',
    bindings: { BASE_URL: baseUrl, PASSWORD },
  }));
}, 60_000);

afterAll(async () => {
  await miniflare?.dispose();
  server?.closeAllConnections();
  server?.close();
});

describe('KycClient in workerd (Cloudflare Workers)', () => {
  it('finishes, reads, maps errors, retries, refuses a foreign detailsURL and times out, with workerd fetch; also made at module scope', async () => {
    const response = await fetch(workerUrl);
    expect(response.status).toBe(200);
    const results = (await response.json()) as Record<string, Record<string, unknown>>;
    expect(results.finish).toEqual({ id: 'sess_workerd_1' });
    expect(results.encoded).toEqual({ id: 'a/b ü' });
    expect(results.missing).toMatchObject({ error: 'KycNotFoundError', status: 404 });
    expect(results.flaky).toEqual({ id: 'flaky' });
    expect(results.retries).toEqual([1, 2]);
    expect(results.refused).toMatchObject({ error: 'KycInvalidRequestError', reason: 'details_url_refused' });
    expect(results.timeout).toMatchObject({ error: 'KycTimeoutError', kind: 'attempt' });
    expect(results.moduleScoped).toEqual({ id: 'module-scoped' });
    for (const result of Object.values(results)) expect(JSON.stringify(result)).not.toContain(PASSWORD);
    expect(seen).toContain('POST /api/v1/kyc/session/finish');
    expect(seen).toContain(`GET /api/v1/kyc/session/${encodeURIComponent('a/b ü')}`);
    // The refused detailsURL sent nothing.
    expect(seen.filter((line) => line.includes('/x'))).toEqual([]);
  });
});
