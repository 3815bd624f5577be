import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { HEADERS } from '@kyc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNING_SECRET_API } from '../src/api/signing-secret-routes.js';
import { USAGE } from '../src/cli/usage.js';
import { PORTAL_API, SANDBOX_API } from '../src/index.js';
import { AUTH_KEY, basicAuth, PASSWORD, startTestReceiver, startTestSandbox, USERNAME } from './helpers.js';

// The README is the page npm shows for the packed package: what it says of the CLI and of the
// time scale must be what the code does. It said nothing of signing secrets, the
// `signing-secret` commands or `--signing-secret`, and that `Webhook-Timestamp` ran on the
// scaled clock, which it does not.

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('the packed README', () => {
  it('names every command and every flag of `kyc-sandbox help`', () => {
    const commands = [...USAGE.matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((m) => m[1] as string);
    const flags = [...new Set([...USAGE.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0]))];
    expect(commands).toEqual(expect.arrayContaining(['start', 'check-endpoint', 'signing-secret', 'listen']));
    for (const command of commands) expect(readme, `command ${command}`).toContain(`kyc-sandbox ${command}`);
    for (const flag of flags) expect(readme, `flag ${flag}`).toContain(flag);
  });

  it('no longer puts Webhook-Timestamp on the scaled clock', () => {
    expect(readme).not.toMatch(/Webhook-Timestamp` header also runs on the scaled clock/);
    expect(readme).toMatch(/`Webhook-Timestamp` header stays on the wall clock at any time scale/);
  });
});

describe('at --time-scale 60, as the README says', () => {
  let sandbox: Awaited<ReturnType<typeof startTestSandbox>>;
  let receiver: Awaited<ReturnType<typeof startTestReceiver>>;
  const call = async (method: string, path: string, body: unknown = {}) => {
    const response = await fetch(`${sandbox.url}${path}`, {
      method,
      headers: {
        authorization: basicAuth(USERNAME, PASSWORD),
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
      },
      body: JSON.stringify(body),
    });
    return (await response.json()) as Record<string, unknown>;
  };
  beforeAll(async () => {
    receiver = await startTestReceiver();
    sandbox = await startTestSandbox({ ca: receiver.certificate.cert, timeScale: 60 });
    await call('PUT', SANDBOX_API.settings, { webhookUrl: receiver.url, authKey: AUTH_KEY });
    await call('POST', SIGNING_SECRET_API.secret);
  });
  afterAll(async () => {
    await sandbox?.close();
    await receiver?.close();
  });

  it('stamps webhook-timestamp within a second of the wall clock, and signs', async () => {
    const before = Math.floor(Date.now() / 1000);
    const result = await call('POST', PORTAL_API.testEvents, { shape: 'status' });
    const after = Math.ceil(Date.now() / 1000);
    expect(result).toMatchObject({ outcome: 'answered', attempt: { status: 200 } });
    const request = receiver.requests.find((r) => r.headers.get(HEADERS.webhookId) === result.eventId);
    const stamped = Number(request?.headers.get(HEADERS.webhookTimestamp));
    expect(stamped).toBeGreaterThanOrEqual(before - 1);
    expect(stamped).toBeLessThanOrEqual(after + 1);
    expect(request?.headers.get(HEADERS.webhookSignature)).toMatch(/^v1,/);
  });
});
