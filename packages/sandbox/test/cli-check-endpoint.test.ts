import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestCertificate } from '@kyc/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen } from '../src/server/listen.js';
import { spawnCli } from './cli-process.js';
import { AUTH_KEY, startTestReceiver, tempDir } from './helpers.js';

const dir = tempDir('kyc-sandbox-cli-check-');
afterAll(() => dir.remove());

// CLI processes started one after another: a few seconds each on a quiet machine, up to 20 s a
// test beside the other stages of `pnpm test` (one such test timed out there at the default).
describe('kyc-sandbox check-endpoint', { timeout: 60_000 }, () => {
  let good: Awaited<ReturnType<typeof startTestReceiver>>;
  let bad: Awaited<ReturnType<typeof listen>>;
  let caFile: string;

  beforeAll(async () => {
    const certificate = await createTestCertificate(['127.0.0.1', 'localhost']);
    caFile = join(dir.path, 'ca.pem');
    writeFileSync(caFile, certificate.cert);
    good = await startTestReceiver({ certificate });
    // A careless endpoint: 200 to everything, no key check.
    bad = await listen(() => new Response('ok'), { port: 0, host: '127.0.0.1', tls: certificate });
  });
  afterAll(async () => {
    await good?.close();
    await bad?.close();
  });

  it('passes a correct receiver (exit 0)', async () => {
    const { code, stdout } = await spawnCli([
      'check-endpoint',
      good.url,
      '--auth-key',
      AUTH_KEY,
      '--ca',
      caFile,
      '--allow-loopback',
    ]).result(60_000);
    expect(stdout).toMatch(/✔ tls-certificate/);
    expect(stdout).toMatch(/✔ rejects-missing-key/);
    expect(stdout).toMatch(/✔ rejects-wrong-key/);
    expect(stdout).toMatch(/✔ accepts-v1/);
    expect(stdout).toMatch(/✔ accepts-status/);
    expect(stdout).toMatch(/✔ tolerates-unknown-fields/);
    expect(stdout).toMatch(/✔ acknowledges-duplicate/);
    expect(stdout).toMatch(/all checks passed/);
    expect(stdout).not.toContain(AUTH_KEY);
    expect(code).toBe(0);
  });

  it('fails a receiver that accepts deliveries without a key (exit 1)', async () => {
    const { code, stdout } = await spawnCli([
      'check-endpoint',
      `${bad.url}/hook`,
      '--auth-key',
      AUTH_KEY,
      '--ca',
      caFile,
      '--allow-loopback',
    ]).result(60_000);
    expect(stdout).toMatch(/✖ rejects-missing-key .*HTTP 200/);
    expect(stdout).toMatch(/✖ rejects-wrong-key/);
    expect(stdout).toMatch(/2 checks failed/);
    expect(code).toBe(1);
  });

  it('fails an endpoint whose certificate is not trusted (exit 1)', async () => {
    const { code, stdout } = await spawnCli([
      'check-endpoint',
      good.url,
      '--auth-key',
      AUTH_KEY,
      '--allow-loopback',
    ]).result(60_000);
    expect(stdout).toMatch(/✖ tls-certificate/);
    expect(stdout).toMatch(/– accepts-v1/);
    expect(code).toBe(1);
  });

  it('accepts an Auth Key that starts with "-", separated from --auth-key or after "=" (exit 0)', async () => {
    // About one generated key in 64 starts with "-"; Node's parseArgs called such a value ambiguous (exit 2).
    const dashKey = '-Zq3xT9bL2wM7kR4vN8sY6pD1hF5gJ0c';
    const dashed = await startTestReceiver({ certificate: good.certificate, authKey: dashKey });
    try {
      for (const form of [['--auth-key', dashKey], [`--auth-key=${dashKey}`]]) {
        const { code, stdout, stderr } = await spawnCli([
          'check-endpoint',
          dashed.url,
          ...form,
          '--ca',
          caFile,
          '--allow-loopback',
        ]).result(60_000);
        expect(stderr).toBe('');
        expect(stdout).toMatch(/all checks passed/);
        expect(stdout).not.toContain(dashKey);
        expect(code).toBe(0);
      }
      // A flag where the value should be is still a mistake, not a key.
      const missing = await spawnCli(['check-endpoint', dashed.url, '--auth-key', '--allow-loopback']).result();
      expect(missing.code).toBe(2);
    } finally {
      await dashed.close();
    }
  });

  it('requires --auth-key', async () => {
    const { code, stderr } = await spawnCli(['check-endpoint', good.url], { env: { KYC_AUTH_KEY: '' } }).result();
    expect(code).toBe(2);
    expect(stderr).toMatch(/--auth-key is required/);
  });
});
