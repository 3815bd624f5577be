import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type RunningSandbox, startSandbox } from '@kyc/sandbox';
import { createContractRecorder, createTestCertificate } from '@kyc/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const here = fileURLToPath(new URL('.', import.meta.url));
const USERNAME = 'python-team';
const PASSWORD = 'python-example-password-51b7';
let running: RunningSandbox;
let dir: string;
let certFile: string;
let keyFile: string;

function python(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', args, { cwd: here, env: { ...process.env, ...env } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    // No python3 is a failure of this suite, never a skip.
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kyc-python-receiver-'));
  const certificate = await createTestCertificate(['127.0.0.1', 'localhost']);
  certFile = join(dir, 'cert.pem');
  keyFile = join(dir, 'key.pem');
  writeFileSync(certFile, certificate.cert);
  writeFileSync(keyFile, certificate.key);
  // 600× schedule so a refused delivery's retries do not hold the suite; loopback allowed
  // loudly, and only this certificate trusted.
  running = await startSandbox({
    dataDir: join(dir, 'sandbox'),
    timeScale: 600,
    allowLoopbackTargets: true,
    trustedCa: [certificate.cert],
  });
  await running.sandbox.addUser(USERNAME, PASSWORD);
});

afterAll(async () => {
  await running?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the Python receiver (standard library + quicktype models)', () => {
  it('reads the contract examples and refuses broken bodies (python3 -m unittest test_models)', async () => {
    const run = await python(['-m', 'unittest', '-v', 'test_models']);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/Ran 5 tests/);
  });

  it('takes real deliveries from the sandbox: each shape, a redelivery, a wrong key (python3 -m unittest live_deliveries)', async () => {
    const record = join(dir, 'deliveries.json');
    const run = await python(['-m', 'unittest', '-v', 'live_deliveries'], {
      KYC_SANDBOX_URL: running.url,
      KYC_USERNAME: USERNAME,
      KYC_PASSWORD: PASSWORD,
      TLS_CERT: certFile,
      TLS_KEY: keyFile,
      KYC_RECORD_FILE: record,
    });
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/Ran 3 tests/);

    // Every delivery the Python receiver got, judged against the published OpenAPI webhook.
    const contract = createContractRecorder();
    const seen = JSON.parse(readFileSync(record, 'utf8')) as { headers: Record<string, string>; body: string }[];
    expect(seen.length).toBeGreaterThanOrEqual(6);
    for (const request of seen)
      contract.webhook({ method: 'POST', headers: new Headers(request.headers), body: request.body });
    contract.assertConforms();
  }, 60_000);

  it('uses models that are what quicktype generates from the committed schemas now', async () => {
    const out = join(dir, 'models.py');
    await promisify(execFile)(
      join(here, 'node_modules', '.bin', 'quicktype'),
      [
        '--src-lang',
        'schema',
        '--lang',
        'python',
        '--python-version',
        '3.7',
        '--no-date-times',
        '--out',
        out,
        '../../docs/contract/schemas/webhook-v1.json',
        '../../docs/contract/schemas/webhook-status.json',
      ],
      { cwd: here },
    );
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(join(here, 'kyc_webhook', 'models.py'), 'utf8'));
  }, 30_000);
});
