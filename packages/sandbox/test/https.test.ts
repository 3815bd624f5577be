import { request } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../src/index.js';
import { PASSWORD, tempDir, USERNAME } from './helpers.js';

let running: RunningSandbox;
const dir = tempDir();

beforeAll(async () => {
  running = await startSandbox({ dataDir: dir.path, https: true });
  await running.sandbox.addUser(USERNAME, PASSWORD);
});
afterAll(async () => {
  await running?.close();
  dir.remove();
});

/** An HTTPS request that trusts only the sandbox's own certificate. */
function call(path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>(
    (resolve, reject) => {
      const req = request(
        `${running.url}${path}`,
        { method: options.method ?? 'GET', headers: options.headers ?? {}, ca: running.certificate ?? '' },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => {
            body += chunk.toString();
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        },
      );
      req.on('error', reject);
      req.end(options.body);
    },
  );
}

describe('sandbox over HTTPS (--https)', () => {
  it('serves a verifiable self-signed certificate and marks every cookie Secure with a __Host- name', async () => {
    expect(running.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const page = await call('/login');
    expect(page.status).toBe(200);
    const csrfCookie = String(page.headers['set-cookie']);
    expect(csrfCookie).toMatch(/^__Host-kyc_sandbox_csrf=[^;]+;.*Secure/);
    expect(csrfCookie).toMatch(/HttpOnly/);
    const token = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
    const cookie = csrfCookie.split(';')[0] ?? '';
    const form = new URLSearchParams({ _csrf: token, username: USERNAME, password: PASSWORD }).toString();
    const login = await call('/login', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: running.url,
        cookie,
      },
      body: form,
    });
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe('/dashboard/sessions');
    const session = ([] as string[])
      .concat(login.headers['set-cookie'] ?? [])
      .find((c) => c.startsWith('__Host-kyc_sandbox='));
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/Secure/);
    expect(session).toMatch(/SameSite=Strict/);
    expect(session).toMatch(/Path=\//);
  });

  it('refuses a cross-site form post before looking at credentials', async () => {
    const forged = await call('/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: new URLSearchParams({ username: USERNAME, password: PASSWORD }).toString(),
    });
    expect(forged.status).toBe(403);
  });
});

describe('startSandbox options', () => {
  it('rejects an impossible port or time scale with a SandboxError naming the option', async () => {
    const scratch = tempDir();
    try {
      await expect(startSandbox({ dataDir: scratch.path, port: 70_000 })).rejects.toMatchObject({
        name: 'SandboxError',
        code: 'invalid_option',
        message: expect.stringMatching(/port/),
      });
      await expect(startSandbox({ dataDir: scratch.path, timeScale: 0 })).rejects.toMatchObject({
        code: 'invalid_option',
        message: expect.stringMatching(/timeScale/),
      });
    } finally {
      scratch.remove();
    }
  });
});
