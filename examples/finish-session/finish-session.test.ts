import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KycClient } from '@kyc/client';
import { type RunningSandbox, SANDBOX_API, startSandbox } from '@kyc/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishSession, readSession } from './finish-session.js';

const USERNAME = 'acme-backend';
const PASSWORD = 'finish-example-password-4c1e';
let running: RunningSandbox;
let dataDir: string;
let client: KycClient;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'kyc-finish-example-'));
  running = await startSandbox({ dataDir });
  await running.sandbox.addUser(USERNAME, PASSWORD);
  client = new KycClient({ baseUrl: running.url, username: USERNAME, password: PASSWORD });
});

afterAll(async () => {
  await running?.close();
  rmSync(dataDir, { recursive: true, force: true });
  // The sandbox's secrets key file sits beside its data folder.
  rmSync(`${dataDir}.key`, { force: true });
});

/** A flow in progress, created through the sandbox-only API as the dashboard would. */
async function newSession(status: string): Promise<string> {
  const response = await fetch(`${running.url}${SANDBOX_API.sessions}`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${btoa(`${USERNAME}:${PASSWORD}`)}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ status }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

describe('finish-session example against a running sandbox', () => {
  it('finishes a flow and reads the same details back', async () => {
    const id = await newSession('APPROVED');
    expect(await readSession(client, id)).toMatchObject({ ok: true, details: { id, state: 'IN_PROGRESS' } });

    const finished = await finishSession(client, id);
    expect(finished).toMatchObject({ ok: true, details: { id, state: 'FINISHED', status: 'APPROVED' } });
    expect(await readSession(client, id)).toEqual(finished);
  });

  it('finishing twice is safe: the same details come back', async () => {
    const id = await newSession('REJECTED');
    const first = await finishSession(client, id);
    expect(await finishSession(client, id)).toEqual(first);
  });

  it('reports an unknown session as such, with the request id to quote', async () => {
    const outcome = await finishSession(client, 'no-such-session');
    expect(outcome).toMatchObject({ ok: false, reason: 'unknown-session', retryLater: false });
    expect(outcome.ok === false && outcome.requestId).toBeTruthy();
  });

  it('reports wrong credentials without the password in the message', async () => {
    const wrongPassword = 'not-the-password-9f2d';
    const wrong = new KycClient({ baseUrl: running.url, username: USERNAME, password: wrongPassword });
    const outcome = await finishSession(wrong, await newSession('PENDING'));
    expect(outcome).toMatchObject({ ok: false, reason: 'bad-credentials', retryLater: false });
    expect(JSON.stringify(outcome)).not.toContain(wrongPassword);
  });

  it('refuses an empty id before sending anything', async () => {
    expect(await finishSession(client, '')).toMatchObject({ ok: false, reason: 'invalid-argument' });
  });

  it('says to retry later when the service cannot be reached', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const unreachable = new KycClient({
      baseUrl: `http://127.0.0.1:${closedPort}`,
      username: USERNAME,
      password: PASSWORD,
      maxRetries: 0,
    });
    expect(await finishSession(unreachable, 'sess-1')).toMatchObject({
      ok: false,
      reason: 'service-unavailable',
      retryLater: true,
    });
  });

  it('stops when the caller cancels', async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await finishSession(client, await newSession('ERROR'), controller.signal)).toMatchObject({
      ok: false,
      reason: 'cancelled',
    });
  });
});
