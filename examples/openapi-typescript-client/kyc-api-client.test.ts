import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { KycClient } from '@kyc/client';
import { type RunningSandbox, SANDBOX_API, startSandbox } from '@kyc/sandbox';
import { createContractRecorder } from '@kyc/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKycApiClient } from './kyc-api-client.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const USERNAME = 'acme-backend';
const PASSWORD = 'openapi-example-password-9d2a';
const contract = createContractRecorder();
let running: RunningSandbox;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'kyc-openapi-client-'));
  running = await startSandbox({ dataDir });
  await running.sandbox.addUser(USERNAME, PASSWORD);
});
afterAll(async () => {
  await running?.close();
  rmSync(dataDir, { recursive: true, force: true });
  // The sandbox's secrets key file sits beside its data folder.
  rmSync(`${dataDir}.key`, { force: true });
  contract.assertConforms();
});

async function newSession(status: string): Promise<string> {
  const response = await fetch(`${running.url}${SANDBOX_API.sessions}`, {
    method: 'POST',
    headers: { authorization: `Basic ${btoa(`${USERNAME}:${PASSWORD}`)}`, 'content-type': 'application/json' },
    body: JSON.stringify({ status }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

describe('a client generated from the OpenAPI document, against a running sandbox', () => {
  it('finishes a flow and reads it back, with the same details as @kyc/client', async () => {
    const kyc = createKycApiClient({
      baseUrl: running.url,
      username: USERNAME,
      password: PASSWORD,
      fetch: contract.fetch,
    });
    const id = await newSession('PENDING');
    const before = await kyc.getSession(id);
    expect(before).toMatchObject({ ok: true, details: { id, state: 'IN_PROGRESS' } });

    const finished = await kyc.finishSession(id);
    expect(finished).toMatchObject({ ok: true, details: { id, state: 'FINISHED', status: 'PENDING' } });
    const sdk = new KycClient({ baseUrl: running.url, username: USERNAME, password: PASSWORD });
    expect(finished.ok && finished.details).toEqual(await sdk.getSession(id));
    expect(contract.counts().responses).toBe(2);
  });

  it('gives the typed error body, status and request id of a failed call', async () => {
    const kyc = createKycApiClient({
      baseUrl: running.url,
      username: USERNAME,
      password: PASSWORD,
      fetch: contract.fetch,
    });
    const missing = await kyc.getSession('sess_nobody');
    expect(missing).toMatchObject({ ok: false, status: 404, error: { code: 'SESSION_NOT_FOUND' } });
    expect(!missing.ok && missing.requestId).toMatch(/\S/);
    const stranger = createKycApiClient({
      baseUrl: running.url,
      username: USERNAME,
      password: 'wrong password',
      fetch: contract.fetch,
    });
    await expect(stranger.finishSession('sess_x')).resolves.toMatchObject({
      ok: false,
      status: 401,
      error: { code: 'UNAUTHORIZED' },
    });
  });

  it('uses types that are what openapi-typescript generates from the committed document now', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kyc-openapi-types-'));
    try {
      const out = join(dir, 'kyc-api.d.ts');
      await promisify(execFile)(
        join(here, 'node_modules', '.bin', 'openapi-typescript'),
        [join(here, '..', '..', 'docs', 'contract', 'openapi.json'), '--output', out],
        { cwd: here },
      );
      expect(readFileSync(out, 'utf8')).toBe(readFileSync(join(here, 'kyc-api.d.ts'), 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
