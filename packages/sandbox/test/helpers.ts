import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HEADERS, JSON_CONTENT_TYPE } from '@kyc/contracts';
import { createContractRecorder, createTestCertificate, type TestCertificate } from '@kyc/test-support';
import { createWebhookReceiver, type KycWebhookEvent } from '@kyc/webhook-receiver';
import { afterAll } from 'vitest';
import { type RunningSandbox, type SandboxLogger, type SandboxTelemetry, startSandbox } from '../src/index.js';
import { listen } from '../src/server/listen.js';

/**
 * Every service answer and every webhook these suites see is judged against the published
 * OpenAPI document (`@kyc/contracts/openapi.json`): `api()` and clients built with
 * `fetch: contract.fetch` record answers, `startTestReceiver` records deliveries, and each test
 * file that imports this module fails after its tests if any of them broke the contract.
 */
export const contract = createContractRecorder();
afterAll(() => contract.assertConforms());

export const USERNAME = 'alice';
export const PASSWORD = 'correct horse battery staple';
export const AUTH_KEY = 'qT7#vLm2$Xw9pRz4!Kd8nB3eHs6';

/** A temp folder (and the secrets key file a sandbox makes beside it) removed by the returned cleanup. */
export function tempDir(prefix = 'kyc-sandbox-test-'): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  // The secrets key file sits beside the data folder, not in it.
  return {
    path,
    remove: () => {
      rmSync(path, { recursive: true, force: true });
      rmSync(`${path}.key`, { force: true });
    },
  };
}

/** A sandbox on loopback with one user, trusting `ca`, on a 600× schedule (first retry after 100 ms). */
export async function startTestSandbox(
  options: { ca?: string; timeScale?: number; logger?: SandboxLogger; telemetry?: SandboxTelemetry } = {},
) {
  const dir = tempDir();
  const running: RunningSandbox = await startSandbox({
    dataDir: dir.path,
    timeScale: options.timeScale ?? 600,
    allowLoopbackTargets: true,
    ...(options.ca ? { trustedCa: [options.ca] } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.telemetry ? { telemetry: options.telemetry } : {}),
  });
  await running.sandbox.addUser(USERNAME, PASSWORD);
  return {
    url: running.url,
    running,
    dataDir: dir.path,
    basic: basicAuth(USERNAME, PASSWORD),
    async close() {
      await running.close();
      dir.remove();
    },
  };
}

export const basicAuth = (username: string, password: string) =>
  `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

/** A JSON request to the sandbox with Basic credentials. */
export async function api(
  base: string,
  method: string,
  path: string,
  options: { body?: unknown; authorization?: string | null; raw?: string } = {},
) {
  const headers: Record<string, string> = { [HEADERS.contentType]: JSON_CONTENT_TYPE };
  if (options.authorization !== null)
    headers[HEADERS.authorization] = options.authorization ?? basicAuth(USERNAME, PASSWORD);
  const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const response = await fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  const violations = contract.response({
    method,
    path,
    status: response.status,
    headers: response.headers,
    body: text,
  });
  if (violations.length > 0)
    throw new Error(`${method} ${path}: answer outside the OpenAPI document:\n${violations.join('\n')}`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

/** One request as a test receiver saw it. */
export interface SeenRequest {
  readonly headers: Headers;
  readonly body: string;
  readonly status: number;
}

/**
 * A real HTTPS receiver on loopback built on `@kyc/webhook-receiver`, recording every request
 * and every handler run. `failFirst` makes the handler throw on its first run (→ 500);
 * `trustTraceContext` continues the sandbox's trace, as the demo's receiver does.
 */
export async function startTestReceiver(
  options: { failFirst?: boolean; certificate?: TestCertificate; trustTraceContext?: boolean; authKey?: string } = {},
) {
  const certificate = options.certificate ?? (await createTestCertificate(['127.0.0.1', 'localhost']));
  const requests: SeenRequest[] = [];
  const events: KycWebhookEvent[] = [];
  let failures = options.failFirst ? 1 : 0;
  const receiver = createWebhookReceiver({
    authKeys: [options.authKey ?? AUTH_KEY],
    trustTraceContext: options.trustTraceContext === true,
    // The failures these tests cause on purpose are asserted, not logged.
    logger: {},
    onEvent: (event) => {
      if (failures > 0) {
        failures--;
        throw new Error('simulated handler failure');
      }
      events.push(event);
    },
  });
  const server = await listen(
    async (request) => {
      const body = await request.clone().text();
      contract.webhook({ method: request.method, headers: request.headers, body });
      const response = await receiver.handle(request);
      requests.push({ headers: request.headers, body, status: response.status });
      return response;
    },
    { port: 0, host: '127.0.0.1', tls: certificate },
  );
  return { url: `${server.url}/webhook`, certificate, requests, events, close: () => server.close() };
}

/** Polls `check` every 50 ms until it returns a value, for at most `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 15_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Logs in to the dashboard through its form (Origin, double-submit CSRF cookie) and returns the login cookie. */
export async function dashboardLogin(baseUrl: string, username: string): Promise<string> {
  const page = await fetch(`${baseUrl}/login`);
  const csrfCookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const token = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const answer = await fetch(`${baseUrl}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: baseUrl, cookie: csrfCookie },
    body: new URLSearchParams({ _csrf: token, username, password: PASSWORD }),
  });
  if (answer.status !== 303) throw new Error(`dashboard login of ${username} answered ${answer.status}`);
  return (
    answer.headers
      .getSetCookie()
      .find((c) => c.startsWith('kyc_sandbox='))
      ?.split(';')[0] ?? ''
  );
}
