import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestCertificate } from '@kyc/test-support';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandbox, SANDBOX_API } from '../src/index.js';
import { listen } from '../src/server/listen.js';
import { spawnCli } from './cli-process.js';
import { AUTH_KEY, api, basicAuth, PASSWORD, startTestReceiver, tempDir, USERNAME } from './helpers.js';

const dir = tempDir('kyc-sandbox-cli-');
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const tsxBin = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url));
afterAll(() => dir.remove());

const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at /);

describe('kyc-sandbox trigger: clear errors', () => {
  it('names a trigger status it does not know, and the ones it does, before asking for a login', async () => {
    const unknown = await spawnCli(['trigger', 'aproved']).result();
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown status "aproved": trigger takes approved, rejected, pending, error\n/);
    const extra = await spawnCli(['trigger', 'approved', 'twice']).result();
    expect(extra.code).toBe(2);
    expect(extra.stderr).toMatch(/unexpected argument "twice"/);
    noStack(unknown.stderr);
  });
});

describe('kyc-sandbox start: clear errors', () => {
  it('rejects an unknown flag with exit code 2 and no stack', async () => {
    const { code, stderr } = await spawnCli(['start', '--bogus']).result();
    expect(code).toBe(2);
    expect(stderr).toMatch(/Unknown option '--bogus'/);
    noStack(stderr);
  });

  it('rejects a bad --port and a bad --time-scale', async () => {
    const port = await spawnCli(['start', '--port', '99999']).result();
    expect(port.code).toBe(2);
    expect(port.stderr).toMatch(/--port must be a number from 0 to 65535/);
    const scale = await spawnCli(['start', '--time-scale', 'fast']).result();
    expect(scale.code).toBe(2);
    expect(scale.stderr).toMatch(/--time-scale/);
  });

  it('reports a busy port', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const { code, stderr } = await spawnCli([
        'start',
        '--port',
        String(port),
        '--data-dir',
        join(dir.path, 'busy'),
      ]).result();
      expect(code).toBe(1);
      expect(stderr).toMatch(new RegExp(`port ${port} on 127.0.0.1 is already in use`));
      noStack(stderr);
    } finally {
      blocker.close();
    }
  });

  it('reports a data folder it cannot write', async () => {
    const file = join(dir.path, 'a-file');
    writeFileSync(file, 'not a folder');
    const { code, stderr } = await spawnCli(['start', '--port', '0', '--data-dir', join(file, 'data')]).result();
    expect(code).toBe(1);
    expect(stderr).toMatch(/cannot use the data folder .*a-file\/data \(ENOTDIR\)/);
    noStack(stderr);
  });

  it('starts, prints its URLs, and shuts down gracefully on SIGTERM', async () => {
    const run = spawnCli(['start', '--port', '0', '--data-dir', join(dir.path, 'run'), '--allow-loopback-targets']);
    const [, url] = await run.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
    expect(run.output().stderr).toMatch(/!!! --allow-loopback-targets/);
    const login = await fetch(`${url}/login`);
    expect(login.status).toBe(200);
    run.child.kill('SIGTERM');
    const { code, stdout } = await run.result();
    expect(code).toBe(0);
    expect(stdout).toMatch(/SIGTERM: shutting down/);
    expect(stdout).toMatch(/stopped/);
  });
});

describe('kyc-sandbox start --log-format json', () => {
  it('writes only JSON lines, and serves the probes and a Prometheus scrape', async () => {
    const run = spawnCli([
      'start',
      '--port',
      '0',
      '--data-dir',
      join(dir.path, 'json'),
      '--allow-loopback-targets',
      '--log-format',
      'json',
    ]);
    const [, url] = await run.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    const scrape = await fetch(`${url}/metrics`);
    expect(scrape.status).toBe(200);
    const families = parsePrometheusTextFormat(await scrape.text());
    expect(families.find((f) => f.name === 'kyc_webhook_queue_depth')?.type).toBe('GAUGE');
    run.child.kill('SIGTERM');
    const { code, stdout, stderr } = await run.result();
    expect(code).toBe(0);
    expect(stderr).toBe('');
    const lines = stdout.split('\n').filter((line) => line !== '');
    const events = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const event of events) expect(event).toMatchObject({ time: expect.any(String), level: expect.any(String) });
    expect(events.map((e) => [e.level, String(e.msg).split(':')[0]])).toEqual([
      ['warn', '!!! --allow-loopback-targets'],
      ['info', `KYC sandbox listening on http`],
      ['info', 'SIGTERM'],
      ['info', 'stopped'],
    ]);
    expect(events[1]).toMatchObject({ event: 'sandbox.lifecycle', url, users: 0 });
  });
});

describe('kyc-sandbox start end to end', () => {
  it('delivers to a loopback receiver it was told to trust and logs each attempt', async () => {
    const receiver = await startTestReceiver();
    const dataDir = join(dir.path, 'e2e');
    const caFile = join(dir.path, 'e2e-ca.pem');
    writeFileSync(caFile, receiver.certificate.cert);
    const added = await spawnCli(['user', 'add', USERNAME, '--data-dir', dataDir], { stdin: `${PASSWORD}\n` }).result();
    expect(added.code).toBe(0);
    const run = spawnCli([
      'start',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--allow-loopback-targets',
      '--trust-ca',
      caFile,
      '--time-scale',
      '600',
    ]);
    try {
      const [, url = ''] = await run.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      expect(
        (await api(url, 'PUT', SANDBOX_API.settings, { body: { webhookUrl: receiver.url, authKey: AUTH_KEY } })).status,
      ).toBe(200);
      const created = await api(url, 'POST', SANDBOX_API.sessions, { body: {} });
      const id = (created.json as { id: string }).id;
      expect((await api(url, 'POST', '/api/v1/kyc/session/finish', { body: { sessionId: id } })).status).toBe(200);
      await run.waitFor(/webhook evt_\w+ → https:\/\/127\.0\.0\.1:\d+: attempt #1 delivered 200, delivered/);
      expect(run.output().stdout).not.toContain('/webhook:');
      expect(receiver.events.map((e) => e.sessionId)).toEqual([id]);
    } finally {
      run.child.kill('SIGINT');
      expect((await run.result()).code).toBe(0);
      await receiver.close();
    }
  });
});

describe('kyc-sandbox start: graceful shutdown', () => {
  it('lets a delivery in flight finish and records it before exiting on SIGTERM', async () => {
    const certificate = await createTestCertificate(['127.0.0.1']);
    let arrived = 0;
    let answered = 0;
    // A slow receiver: the attempt is still in flight when the signal comes.
    const slow = await listen(
      async () => {
        arrived++;
        await new Promise((resolve) => setTimeout(resolve, 1500));
        answered++;
        return new Response('ok');
      },
      { port: 0, host: '127.0.0.1', tls: certificate },
    );
    const dataDir = join(dir.path, 'graceful');
    const caFile = join(dir.path, 'graceful-ca.pem');
    writeFileSync(caFile, certificate.cert);
    expect(
      (await spawnCli(['user', 'add', USERNAME, '--data-dir', dataDir], { stdin: `${PASSWORD}\n` }).result()).code,
    ).toBe(0);
    const run = spawnCli([
      'start',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--allow-loopback-targets',
      '--trust-ca',
      caFile,
    ]);
    try {
      const [, url = ''] = await run.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      await api(url, 'PUT', SANDBOX_API.settings, { body: { webhookUrl: `${slow.url}/hook`, authKey: AUTH_KEY } });
      const id = ((await api(url, 'POST', SANDBOX_API.sessions, { body: {} })).json as { id: string }).id;
      expect((await api(url, 'POST', '/api/v1/kyc/session/finish', { body: { sessionId: id } })).status).toBe(200);
      for (let i = 0; i < 200 && arrived === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(arrived).toBe(1);
      expect(answered).toBe(0);
      run.child.kill('SIGTERM');
      const { code, stdout } = await run.result();
      expect(code).toBe(0);
      expect(answered).toBe(1);
      const delivered = stdout.search(/attempt #1 delivered 200, delivered/);
      expect(delivered).toBeGreaterThan(stdout.indexOf('SIGTERM: shutting down'));
      expect(stdout.indexOf('stopped')).toBeGreaterThan(delivered);
    } finally {
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
      await slow.close();
    }
  });
});

describe('kyc-sandbox user add', () => {
  it('reads the password from stdin and prints nothing secret; a second add of the same name fails', async () => {
    const password = 'a-very-secret-passphrase';
    const dataDir = join(dir.path, 'users');
    const added = await spawnCli(['user', 'add', 'carol', '--data-dir', dataDir], { stdin: `${password}\n` }).result();
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/user "carol" added to company "Sandbox Company"/);
    expect(added.stdout + added.stderr).not.toContain(password);
    const again = await spawnCli(['user', 'add', 'carol', '--password', password, '--data-dir', dataDir]).result();
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists/);
    expect(again.stdout + again.stderr).not.toContain(password);
  });
});

describe('kyc-sandbox user add at a terminal', () => {
  it('asks for the password without echoing it, and stores it', async () => {
    const dataDir = join(dir.path, 'tty');
    const password = 'typed at a terminal 42';
    // `script` (util-linux) gives the CLI a real pseudo-terminal, as a person typing would.
    const command = `${tsxBin} --conditions=@kyc/source src/cli.ts user add tty-user --data-dir ${dataDir}`;
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: packageDir, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      // Type only once the prompt is there: the terminal is then no longer echoing.
      if (output.includes('Password') && !child.stdin.writableEnded) child.stdin.end(`${password}\r`);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    clearTimeout(timer);
    expect(output).toMatch(/Password \(not shown\): /);
    expect(output).toMatch(/user "tty-user" added/);
    expect(output).not.toContain(password);
    expect(code).toBe(0);
    const sandbox = await createSandbox({ dataDir });
    try {
      const answer = await sandbox.fetch(
        new Request('http://sandbox.test/sandbox/settings', {
          headers: { authorization: basicAuth('tty-user', password) },
        }),
      );
      expect(answer.status).toBe(200);
    } finally {
      await sandbox.close();
    }
  });
});
