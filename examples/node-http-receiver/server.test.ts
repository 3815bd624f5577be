import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KycClient } from '@kyc/client';
import type { KycDecision } from '@kyc/example-actions';
import { SANDBOX_API, startSandbox } from '@kyc/sandbox';
import { createTestCertificate, receiverExampleSuite } from '@kyc/test-support';
import { expect, it } from 'vitest';
import { createWebhookServer } from './server.js';

receiverExampleSuite(
  'node-http-receiver',
  async ({ authKey, signingSecrets, onDecision }) => {
    const server = createWebhookServer({
      authKeys: authKey,
      ...(signingSecrets && { signingSecrets }),
      onDecision,
    }).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}/webhooks/kyc`,
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  },
  { signing: true },
);

it('serves HTTPS and acts on a real delivery from the sandbox', async () => {
  const authKey = 'node-http-example-Kq8vR2xWm5tZ';
  const certificate = await createTestCertificate(['127.0.0.1']);
  const decisions: KycDecision[] = [];
  const server = createWebhookServer({
    authKeys: authKey,
    onDecision: (d) => void decisions.push(d),
    tls: certificate,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const dataDir = mkdtempSync(join(tmpdir(), 'kyc-node-http-example-'));
  const sandbox = await startSandbox({ dataDir, allowLoopbackTargets: true, trustedCa: [certificate.cert] });
  try {
    await sandbox.sandbox.addUser('dev', 'a long sandbox passphrase');
    const basic = `Basic ${btoa('dev:a long sandbox passphrase')}`;
    const call = (method: string, path: string, body: unknown) =>
      fetch(`${sandbox.url}${path}`, {
        method,
        headers: { authorization: basic, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const webhookUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/kyc`;
    expect((await call('PUT', SANDBOX_API.settings, { webhookUrl, authKey })).status).toBe(200);
    const created = await call('POST', SANDBOX_API.sessions, { status: 'REJECTED', shape: 'status' });
    const { id } = (await created.json()) as { id: string };

    const client = new KycClient({ baseUrl: sandbox.url, username: 'dev', password: 'a long sandbox passphrase' });
    await client.finishSession(id);
    for (let i = 0; i < 200 && decisions.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(decisions).toEqual([{ sessionId: id, action: 'request-retry', reason: expect.any(String) }]);
  } finally {
    await sandbox.close();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
    // The sandbox's secrets key file sits beside its data folder.
    rmSync(`${dataDir}.key`, { force: true });
  }
});
