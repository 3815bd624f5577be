import { request } from 'node:http';
import { HEADERS } from '@kyc/contracts';
import { createTestCertificate } from '@kyc/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeliveryView, SANDBOX_API } from '../src/index.js';
import { listen } from '../src/server/listen.js';
import {
  AUTH_KEY,
  api,
  basicAuth,
  dashboardLogin,
  eventually,
  PASSWORD,
  startTestSandbox,
  USERNAME,
} from './helpers.js';

let sandbox: Awaited<ReturnType<typeof startTestSandbox>>;
let hostileReceiver: Awaited<ReturnType<typeof listen>>;
let certificate: Awaited<ReturnType<typeof createTestCertificate>>;
const HOSTILE = '<img src=x onerror="alert(1)">';
const HOSTILE_ANSWER = '<script>alert("from the receiver")</script>';

beforeAll(async () => {
  certificate = await createTestCertificate(['127.0.0.1']);
  // A receiver's answer is attacker-controlled text that the Deliveries page shows.
  hostileReceiver = await listen(() => new Response(HOSTILE_ANSWER, { status: 500 }), {
    port: 0,
    host: '127.0.0.1',
    tls: certificate,
  });
  sandbox = await startTestSandbox({ ca: certificate.cert });
  await sandbox.running.sandbox.addUser('mallory', PASSWORD, { company: HOSTILE });
});
afterAll(async () => {
  await sandbox?.close();
  await hostileReceiver?.close();
});

const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

const login = (username: string) => dashboardLogin(sandbox.url, username);

describe('dashboard over HTTP', () => {
  it('escapes stored text (a company name with markup) and sends CSP, no-store and a request id', async () => {
    const cookie = await login('mallory');
    const page = await fetch(`${sandbox.url}/dashboard/settings`, { headers: { cookie } });
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).not.toContain(HOSTILE);
    expect(html).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;');
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get(HEADERS.requestId)).toBeTruthy();
  });

  it("escapes a receiver's response snippet on the delivery page", async () => {
    const saved = await api(sandbox.url, 'PUT', SANDBOX_API.settings, {
      body: { webhookUrl: `${hostileReceiver.url}/hook`, authKey: AUTH_KEY },
    });
    expect(saved.status).toBe(200);
    const id = ((await api(sandbox.url, 'POST', SANDBOX_API.sessions, { body: {} })).json as { id: string }).id;
    expect((await api(sandbox.url, 'POST', '/api/v1/kyc/session/finish', { body: { sessionId: id } })).status).toBe(
      200,
    );
    const view = await eventually(async () => {
      const view = (await api(sandbox.url, 'GET', `${SANDBOX_API.sessions}/${id}/delivery`)).json as DeliveryView;
      return view.attempts.length > 0 ? view : undefined;
    });
    const cookie = await login(USERNAME);
    const list = await (await fetch(`${sandbox.url}/dashboard/deliveries`, { headers: { cookie } })).text();
    expect(list).toContain(`/dashboard/deliveries/${view.eventId}`);
    const html = await (
      await fetch(`${sandbox.url}/dashboard/deliveries/${view.eventId}`, { headers: { cookie } })
    ).text();
    expect(html).toContain(id);
    expect(html).not.toContain(HOSTILE_ANSWER);
    expect(html).toContain('&lt;script&gt;alert(&quot;from the receiver&quot;)&lt;/script&gt;');
  });

  it('calls a delivery Sending until its first attempt is recorded, then Retrying', async () => {
    let answer: () => void = () => undefined;
    const firstAttemptHeld = new Promise<void>((resolve) => {
      answer = resolve;
    });
    let arrived = 0;
    const slowReceiver = await listen(
      async () => {
        arrived += 1;
        await firstAttemptHeld;
        return new Response('not yet', { status: 500 });
      },
      { port: 0, host: '127.0.0.1', tls: certificate },
    );
    try {
      await api(sandbox.url, 'PUT', SANDBOX_API.settings, {
        body: { webhookUrl: `${slowReceiver.url}/hook`, authKey: AUTH_KEY },
      });
      const id = ((await api(sandbox.url, 'POST', SANDBOX_API.sessions, { body: {} })).json as { id: string }).id;
      await api(sandbox.url, 'POST', '/api/v1/kyc/session/finish', { body: { sessionId: id } });
      await eventually(async () => (arrived > 0 ? true : undefined));
      const { eventId } = (await api(sandbox.url, 'GET', `${SANDBOX_API.sessions}/${id}/delivery`))
        .json as DeliveryView;
      const cookie = await login(USERNAME);
      const badgeOf = async () => {
        const html = await (
          await fetch(`${sandbox.url}/dashboard/deliveries/${eventId}`, { headers: { cookie } })
        ).text();
        return /<th scope="row">Status<\/th><td><span class="badge b-pending">(\w+)<\/span>/.exec(html)?.[1];
      };
      await expect(badgeOf()).resolves.toBe('Sending');
      const list = await (await fetch(`${sandbox.url}/dashboard/deliveries`, { headers: { cookie } })).text();
      expect(list).toMatch(new RegExp(`${eventId}[^]*?b-pending">Sending<`));
      answer();
      await eventually(async () => ((await badgeOf()) === 'Retrying' ? true : undefined));
    } finally {
      answer();
      await slowReceiver.close();
    }
  });

  it('escapes a rejected URL echoed back into the settings form', async () => {
    const cookie = await login(USERNAME);
    const edit = await fetch(`${sandbox.url}/dashboard/settings/company/edit`, { headers: { cookie } });
    const typed = 'https://x.example/"><script>alert(2)</script>';
    const answer = await fetch(`${sandbox.url}/dashboard/settings/company`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: sandbox.url, cookie },
      body: new URLSearchParams({ _csrf: csrfOf(await edit.text()), webhookUrl: typed, authKey: '', action: 'save' }),
    });
    const html = await answer.text();
    expect(answer.status).toBe(422);
    expect(html).toContain('id="webhookUrl-error"');
    expect(html).not.toContain('<script>alert(2)');
    expect(html).toContain('value="https://x.example/&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;"');
  });

  it('refuses a login form without the CSRF cookie', async () => {
    const answer = await fetch(`${sandbox.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: sandbox.url },
      body: new URLSearchParams({ _csrf: 'forged', username: USERNAME, password: PASSWORD }),
    });
    expect(answer.status).toBe(403);
    expect(answer.headers.getSetCookie().some((c) => c.startsWith('kyc_sandbox='))).toBe(false);
  });

  it('sends a logged-out visitor to the login page and ends a login on logout', async () => {
    const anonymous = await fetch(`${sandbox.url}/dashboard/deliveries`, { redirect: 'manual' });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toBe('/login');
    const cookie = await login(USERNAME);
    const page = await fetch(`${sandbox.url}/dashboard/sessions`, { headers: { cookie } });
    const token = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    const logout = await fetch(`${sandbox.url}/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: sandbox.url, cookie },
      body: new URLSearchParams({ _csrf: token }),
    });
    expect(logout.status).toBe(303);
    const after = await fetch(`${sandbox.url}/dashboard/sessions`, { headers: { cookie }, redirect: 'manual' });
    expect(after.status).toBe(303);
  });
});

describe('sandbox API bad input', () => {
  it('answers 422 for an outcome outside the contract and JSON 404 for an unknown endpoint', async () => {
    const bad = await api(sandbox.url, 'POST', SANDBOX_API.sessions, {
      body: { status: 'MAYBE', scores: { total: 101 } },
    });
    expect(bad.status).toBe(422);
    expect(bad.text).toMatch(/status/);
    const unknownField = await api(sandbox.url, 'POST', SANDBOX_API.sessions, { body: { colour: 'blue' } });
    expect(unknownField.status).toBe(422);
    const missing = await api(sandbox.url, 'GET', '/sandbox/nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ error: { code: 'NOT_FOUND' } });
    expect(missing.headers.get(HEADERS.requestId)).toBeTruthy();
  });

  it('answers 413 for an oversized body', async () => {
    const big = await api(sandbox.url, 'POST', SANDBOX_API.sessions, { raw: `{"pad":"${'x'.repeat(300 * 1024)}"}` });
    expect(big.status).toBe(413);
    expect(big.json).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
  });

  it('reads chunked bodies and bodies without a length (as curl -X POST sends), and limits them too', async () => {
    /** A raw HTTP/1.1 request: `chunks` are written one by one, so Node sends them chunked. */
    const send = (method: string, path: string, chunks: readonly string[] | undefined) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const { hostname, port } = new URL(sandbox.url);
        const req = request(
          {
            hostname,
            port,
            method,
            path,
            headers: {
              authorization: basicAuth(USERNAME, PASSWORD),
              ...(chunks ? { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } : {}),
            },
          },
          (res) => {
            let body = '';
            res.on('data', (chunk: Buffer) => {
              body += chunk.toString();
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        for (const chunk of chunks ?? []) req.write(chunk);
        req.end();
      });
    const created = await send('POST', SANDBOX_API.sessions, ['{"status":', '"PENDING"}']);
    expect(created.status).toBe(201);
    expect(JSON.parse(created.body)).toMatchObject({ state: 'IN_PROGRESS' });
    const big = await send(
      'POST',
      SANDBOX_API.sessions,
      Array.from({ length: 40 }, () => 'x'.repeat(8 * 1024)),
    );
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body)).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
    const bodyless = await send('POST', `${SANDBOX_API.deliveries}/evt_unknown/redeliver`, undefined);
    expect(bodyless.status).toBe(404);
    expect(JSON.parse(bodyless.body)).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });
});
