import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { AUTH_SCHEME, HEADERS, JSON_CONTENT_TYPE, sampleStatusWebhook } from '@kyc/contracts';
import { type RunningSandbox, startSandbox } from '@kyc/sandbox';
import { createContractRecorder, createTestCertificate, type TestCertificate } from '@kyc/test-support';
import { EXAMPLE_SIGNING_SECRETS, signatureHeaders } from '@kyc/test-support/signing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const here = fileURLToPath(new URL('.', import.meta.url));
const USERNAME = 'python-team';
const PASSWORD = 'python-example-password-51b7';
let running: RunningSandbox;
let dir: string;
let certFile: string;
let keyFile: string;
let certificate: TestCertificate;

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
  certificate = await createTestCertificate(['127.0.0.1', 'localhost']);
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

  it('takes real signed deliveries from the sandbox: each shape, a redelivery, a wrong key, a rotation (python3 -m unittest live_deliveries)', async () => {
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
    expect(run.output).toMatch(/Ran 4 tests/);

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

describe('python3 server.py with KYC_SIGNING_SECRETS="new old" (signatures made here, in TypeScript)', () => {
  const AUTH_KEY = 'py-Server#Key-4Hk8sPq2Zt6W';
  const { new: NEW_SECRET, old: OLD_SECRET, forged: FORGED_SECRET } = EXAMPLE_SIGNING_SECRETS;

  /** POSTs a status body for `sessionId` over HTTPS (only the test certificate trusted), signed with `secrets`. */
  function deliver(port: number, sessionId: string, secrets: readonly string[], ageSeconds = 0) {
    const body = JSON.stringify({ ...structuredClone(sampleStatusWebhook), sessionId });
    return signatureHeaders(body, { id: `evt-${sessionId}`, secrets, ageSeconds }).then(
      (signed) =>
        new Promise<number>((resolve, reject) => {
          const headers: Record<string, string> = {
            [HEADERS.contentType]: JSON_CONTENT_TYPE,
            [HEADERS.authorization]: `${AUTH_SCHEME} ${AUTH_KEY}`,
            // An unsigned delivery still names its event, so only the signature is missing.
            ...(secrets.length ? signed : { [HEADERS.webhookId]: `evt-${sessionId}` }),
          };
          const call = request({ host: '127.0.0.1', port, method: 'POST', path: '/', ca: certificate.cert, headers });
          call.on('response', (answer) => {
            answer.resume();
            answer.on('end', () => resolve(answer.statusCode ?? 0));
          });
          call.on('error', reject);
          call.end(body);
        }),
    );
  }

  it('acts on a delivery signed with either secret or both, and answers 401 to a forged, stale or unsigned one without acting', async () => {
    const child = spawn('python3', ['server.py'], {
      cwd: here,
      env: {
        PATH: process.env.PATH ?? '',
        KYC_AUTH_KEY: AUTH_KEY,
        KYC_SIGNING_SECRETS: `${NEW_SECRET} ${OLD_SECRET}`,
        TLS_CERT: certFile,
        TLS_KEY: keyFile,
        PORT: '0',
      },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        child.on('error', reject);
        child.on('exit', () => reject(new Error(`server.py exited:\n${output}`)));
        child.stdout.on('data', () => {
          const listening = /listening on https:\/\/[^:]+:(\d+)\//.exec(output);
          if (listening) resolve(Number(listening[1]));
        });
      });
      const statuses = {
        new: await deliver(port, 'py-signed-new', [NEW_SECRET]),
        old: await deliver(port, 'py-signed-old', [OLD_SECRET]),
        both: await deliver(port, 'py-signed-both', [NEW_SECRET, OLD_SECRET]),
        forged: await deliver(port, 'py-forged', [FORGED_SECRET]),
        stale: await deliver(port, 'py-stale', [NEW_SECRET], 600),
        unsigned: await deliver(port, 'py-unsigned', []),
      };
      expect(statuses).toEqual({ new: 200, old: 200, both: 200, forged: 401, stale: 401, unsigned: 401 });
      // server.py prints one line per event it acted on, flushed before it answers.
      const acted = output.split('\n').flatMap((line) => /^(py-[\w-]+): /.exec(line)?.[1] ?? []);
      expect(acted).toEqual(['py-signed-new', 'py-signed-old', 'py-signed-both']);
    } finally {
      child.kill('SIGTERM');
    }
  }, 30_000);
});
