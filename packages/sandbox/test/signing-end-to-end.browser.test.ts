import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HEADERS } from '@kyc/contracts';
import { chromiumAvailable, createTestCertificate } from '@kyc/test-support';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_API } from '../src/index.js';
import { spawnCli } from './cli-process.js';
import { AUTH_KEY, basicAuth, tempDir } from './helpers.js';
import { launchBrowser, loginInBrowser } from './support/browser.js';
import { loginEnv, startListener, startSandboxProcess, trigger } from './support/listen-fixtures.js';
import { installPackedReceiver } from './support/packed-receiver.js';
import { startExampleReceiver, startSignedReceiver } from './support/receiver-process.js';

// Every piece in its own process: the sandbox (`kyc-sandbox start`), the CLI commands, the
// customer's receiver (the packed receiver package, npm-installed in a temp project) and Chromium
// for the portal.
const USER = { username: 'carol', password: 'a long sandbox passphrase', company: 'Signing Company' };
const files = tempDir('kyc-signing-e2e-');
/** Everything a person or a log could see, except the reveal page and `signing-secret reveal`. */
const visible: string[] = [];
const secrets: string[] = [];
let sandbox: Awaited<ReturnType<typeof startSandboxProcess>>;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;
let tls: Record<string, string>;
let caFile = '';
/** The project with the packed receiver installed: packed and installed once for the whole file. */
let consumer = '';

const cli = async (args: string[], keep = true) => {
  const run = await spawnCli(args, { env: loginEnv(sandbox.url, USER) }).result();
  if (keep) visible.push(run.stdout, run.stderr);
  return run;
};
const useUrl = async (webhookUrl: string) => {
  const answer = await fetch(`${sandbox.url}${SANDBOX_API.settings}`, {
    method: 'PUT',
    headers: { authorization: basicAuth(USER.username, USER.password), 'content-type': 'application/json' },
    body: JSON.stringify({ webhookUrl, authKey: AUTH_KEY }),
  });
  visible.push(await answer.text());
  expect(answer.status).toBe(200);
};
let lastEventId = '';
const triggered = async () => {
  const run = await trigger(sandbox.url, USER, ['approved']);
  visible.push(run.stdout, run.stderr);
  expect(run.code).toBe(0);
  lastEventId = /webhook (evt_\w+)/.exec(run.stdout)?.[1] ?? '';
  return /finished (sess_\w+)/.exec(run.stdout)?.[1] ?? '';
};
const signaturesIn = (audit: { signatureHeaders: Readonly<Record<string, string | null>> }) =>
  (audit.signatureHeaders[HEADERS.webhookSignature] ?? '').split(' ').filter(Boolean).length;

describe.skipIf(!(await chromiumAvailable()))('signing secrets end to end', { timeout: 120_000 }, () => {
  // npm install of the tarballs reaches the registry (or its cache): its own, longer budget.
  beforeAll(async () => {
    consumer = await installPackedReceiver(join(files.path, 'packed'));
  }, 180_000);
  beforeAll(async () => {
    const certificate = await createTestCertificate(['127.0.0.1', 'localhost']);
    caFile = join(files.path, 'ca.pem');
    writeFileSync(caFile, certificate.cert);
    writeFileSync(join(files.path, 'key.pem'), certificate.key);
    tls = { TLS_KEY_FILE: join(files.path, 'key.pem'), TLS_CERT_FILE: caFile };
    // Scale 1: webhook-timestamp must be real time for the receiver's 5-minute tolerance.
    sandbox = await startSandboxProcess([USER], 1, ['--allow-loopback-targets', '--trust-ca', caFile]);
    browser = await launchBrowser();
    page = browser.page;
    page.on('response', (response) => {
      const type = response.headers()['content-type'] ?? '';
      const isReveal = response.request().method() === 'POST' && response.url().endsWith('/signing-secret/reveal');
      if (response.url().startsWith(sandbox.url) && /html|json/.test(type) && !isReveal) {
        visible.push(`page ${response.url()}`);
        response.text().then(
          (text) => visible.push(text),
          () => undefined,
        );
      }
    });
  });
  afterAll(async () => {
    await browser?.close();
    await sandbox?.close();
    files.remove();
  });

  it('a secret set in the portal signs trigger and a finished session; the packed receiver verifies and audits its label', async () => {
    await loginInBrowser(page, sandbox.url, USER.username, USER.password);
    await page.goto(`${sandbox.url}/dashboard/settings`);
    await expect(page.locator('#signing-off').textContent()).resolves.toMatch(/not signed/);
    await page.getByRole('button', { name: 'Create a signing secret' }).click();
    await page.waitForURL('**/dashboard/settings?signing=created**');
    await expect(page.locator('#signing-secrets').textContent()).resolves.toMatch(
      /secret-1 \(current\)\s*created \d+ s ago/,
    );
    await page.getByRole('link', { name: 'Reveal…' }).click();
    await page.getByLabel('Password').fill('not my password');
    await page.getByRole('button', { name: 'Reveal' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/not your password/);
    await page.getByLabel('Password').fill(USER.password);
    await page.getByRole('button', { name: 'Reveal' }).click();
    const first = (await page.locator('#secret-secret-1').textContent()) ?? '';
    expect(first).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    secrets.push(first);

    const receiver = await startSignedReceiver(consumer, {
      ...tls,
      KYC_AUTH_KEY: AUTH_KEY,
      KYC_SIGNING_SECRETS: first,
      KYC_SIGNING_SECRET_LABELS: 'secret-1',
    });
    try {
      await useUrl(`https://127.0.0.1:${receiver.port}/webhooks/kyc`);
      const fromTrigger = await receiver.auditOf(await triggered());
      expect(fromTrigger).toMatchObject({ httpStatus: 200, signatureVerified: true, signingSecretLabel: 'secret-1' });

      const basic = { authorization: basicAuth(USER.username, USER.password), 'content-type': 'application/json' };
      const created = await fetch(`${sandbox.url}${SANDBOX_API.sessions}`, {
        method: 'POST',
        headers: basic,
        body: '{}',
      });
      const { id } = (await created.json()) as { id: string };
      const finish = { method: 'POST', headers: basic, body: JSON.stringify({ sessionId: id }) };
      expect((await fetch(`${sandbox.url}/api/v1/kyc/session/finish`, finish)).status).toBe(200);
      const fromFinish = await receiver.auditOf(id);
      expect(fromFinish).toMatchObject({ httpStatus: 200, signatureVerified: true, signingSecretLabel: 'secret-1' });
      expect(signaturesIn(fromFinish)).toBe(1);
    } finally {
      await receiver.close();
    }
  });

  it('rotating sends both signatures: a receiver with only the new secret verifies; after the overlap only the new one is sent', async () => {
    const rotated = await cli(['signing-secret', 'rotate']);
    expect(rotated.code).toBe(0);
    expect(rotated.stdout).toMatch(/secret-2 is the new signing secret/);
    expect(rotated.stdout).toMatch(/secret-1 \(previous\), created .* ago, stops signing at \S+ \(in 24 h\)/);
    const revealed = await cli(['signing-secret', 'reveal'], false);
    const second = /secret-2 \(current\): (whsec_\S+)/.exec(revealed.stdout)?.[1] ?? '';
    expect(revealed.stdout).toContain(`secret-1 (previous): ${secrets[0]}`);
    expect(second).toMatch(/^whsec_/);
    secrets.push(second);

    await page.goto(`${sandbox.url}/dashboard/settings`);
    const table = (await page.locator('#signing-secrets').textContent()) ?? '';
    expect(table).toMatch(/secret-2 \(current\)/);
    expect(table).toMatch(/secret-1 \(previous\).*stops signing at \S+ \(in 24 h\)/s);

    const receiver = await startSignedReceiver(consumer, {
      ...tls,
      KYC_AUTH_KEY: AUTH_KEY,
      KYC_SIGNING_SECRETS: second,
      KYC_SIGNING_SECRET_LABELS: 'secret-2',
    });
    try {
      await useUrl(`https://127.0.0.1:${receiver.port}/webhooks/kyc`);
      const during = await receiver.auditOf(await triggered());
      expect(during).toMatchObject({ httpStatus: 200, signatureVerified: true, signingSecretLabel: 'secret-2' });
      expect(signaturesIn(during)).toBe(2);
      // The attempt inspector: the header as sent, and which secrets made it (labels and ages, no value).
      await page.goto(`${sandbox.url}/dashboard/deliveries/${lastEventId}`);
      const sent = during.signatureHeaders[HEADERS.webhookSignature] ?? '';
      await expect(page.getByRole('row', { name: /webhook-signature/ }).textContent()).resolves.toContain(sent);
      await expect(page.locator('.signed-with').first().textContent()).resolves.toMatch(
        /Signed with secret-2 \(then \d+ s old\) and secret-1 \(then [\d.]+ (s|min) old\)/,
      );

      const ended = await cli(['signing-secret', 'end-overlap']);
      expect(ended.stdout).toMatch(/^secret-2 \(current\), created .* ago\n$/);
      const after = await receiver.auditOf(await triggered());
      expect(after).toMatchObject({ httpStatus: 200, signatureVerified: true, signingSecretLabel: 'secret-2' });
      expect(signaturesIn(after)).toBe(1);
    } finally {
      await receiver.close();
    }
  });

  it('kyc-sandbox listen forwards the signature untouched to a receiver on this machine', async () => {
    const receiver = await startSignedReceiver(consumer, {
      KYC_AUTH_KEY: AUTH_KEY,
      KYC_SIGNING_SECRETS: secrets[1] ?? '',
      KYC_SIGNING_SECRET_LABELS: 'secret-2',
    });
    const listener = await startListener(sandbox.url, USER, `http://127.0.0.1:${receiver.port}/webhooks/kyc`);
    try {
      const forwarded = await receiver.auditOf(await triggered());
      expect(forwarded).toMatchObject({ httpStatus: 200, signatureVerified: true, signingSecretLabel: 'secret-2' });
    } finally {
      listener.child.kill('SIGTERM');
      visible.push((await listener.result()).stdout);
      await receiver.close();
    }
  });

  it('check-endpoint tells an endpoint that ignores signatures what to fix (the documented example, check removed)', async () => {
    const secret = secrets[1] ?? '';
    const args = ['--auth-key', AUTH_KEY, '--signing-secret', secret, '--ca', caFile, '--allow-loopback'];
    const careless = await startExampleReceiver({ ...tls, KYC_AUTH_KEY: AUTH_KEY });
    try {
      const run = await cli(['check-endpoint', careless.url, ...args]);
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/✔ signing-secret/);
      expect(run.stdout).toMatch(/✖ rejects-wrong-signature .*\(HTTP 200/);
      expect(run.stdout).toMatch(
        /fix: Your endpoint accepted a delivery whose webhook-signature was made with another secret \(HTTP 200\): verify webhook-signature/,
      );
      expect(run.stdout).toMatch(/✖ rejects-stale-signature/);
      expect(run.stdout).toMatch(/✔ accepts-v1/);
    } finally {
      await careless.close();
    }
    const careful = await startExampleReceiver({ ...tls, KYC_AUTH_KEY: AUTH_KEY, KYC_SIGNING_SECRETS: secret });
    try {
      const run = await cli(['check-endpoint', careful.url, ...args]);
      expect(run.stdout).toMatch(/✔ rejects-wrong-signature/);
      expect(run.stdout).toMatch(/✔ rejects-stale-signature/);
      expect(run.stdout).toMatch(/all checks passed/);
      expect(run.code).toBe(0);
    } finally {
      await careful.close();
    }
  });

  it('shows no secret in any page but the reveal, any log line, or any CLI output but reveal', () => {
    const output = sandbox.process.output();
    visible.push(output.stdout, output.stderr);
    expect(secrets).toHaveLength(2);
    expect(visible.length).toBeGreaterThan(20);
    for (const text of visible) {
      expect(text).not.toMatch(/whsec_/);
      for (const secret of secrets) expect(text).not.toContain(secret.slice(6, 30));
    }
  });
});
