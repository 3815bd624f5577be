import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const guard = fileURLToPath(new URL('./fixtures/loopback-guard.mjs', import.meta.url));
const dir = tempDir('kyc-demo-test-');
afterAll(() => dir.remove());

/** Runs a command with the loopback guard preloaded into every Node process it starts. */
async function runGuarded(command: string, args: readonly string[], guardLog: string, timeoutMs: number) {
  writeFileSync(guardLog, '');
  const child = spawn(command, args, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${guard}`.trim(),
      KYC_LOOPBACK_GUARD_LOG: guardLog,
    },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  // 'close', not 'exit': only then has all of the output been read.
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearTimeout(timer);
  const lines = readFileSync(guardLog, 'utf8').split('\n').filter(Boolean);
  return {
    code,
    output,
    guarded: lines.filter((line) => / loaded /.test(line)).join('\n'),
    contacted: lines.filter((line) => !/ loaded /.test(line)).join('\n'),
  };
}

// The demo is bounded by its own 60 s kill; the test waits for that, not the default 20 s.
describe('pnpm demo', { timeout: 70_000 }, () => {
  it('the loopback guard notices a connection and a lookup outside loopback', async () => {
    const script = [
      "const s = require('node:net').connect(8443, '192.0.2.1'); s.on('error', () => {}); s.destroy();",
      "require('node:dns').lookup('example.invalid', () => {});",
      "require('node:net').connect(8443, '127.0.0.1').on('error', () => {}).destroy();",
    ].join('\n');
    const { code, contacted } = await runGuarded('node', ['-e', script], join(dir.path, 'control.log'), 10_000);
    expect(code).toBe(0);
    expect(contacted).toMatch(/connect 192\.0\.2\.1:8443/);
    expect(contacted).toMatch(/lookup example\.invalid/);
    expect(contacted).not.toMatch(/127\.0\.0\.1/);
  });

  it('runs the whole flow on loopback only and exits 0 within a minute', async () => {
    const { code, output, guarded, contacted } = await runGuarded('pnpm', ['demo'], join(dir.path, 'demo.log'), 60_000);
    expect(guarded).toMatch(/ loaded .*packages\/sandbox\/src\/demo\.ts/);
    expect(output).toMatch(/fails on purpose → 500/);
    expect(output).toMatch(/attempt #2 \(round 1\) delivered HTTP 200/);
    expect(output).toMatch(/is a duplicate → 200, handler not run/);
    for (const status of ['APPROVED', 'REJECTED', 'PENDING', 'ERROR']) {
      expect(output).toContain(`will end ${status}`);
      expect(output).toMatch(new RegExp(`handler ran for sess_\\w+: .*${status} → `));
    }
    // One trace from the client's call to the customer's handler, drawn as a tree: its lines in
    // this order (the demo itself checks each span's ancestry and reports a broken chain).
    expect(output).toMatch(
      new RegExp(
        [
          '└─ POST http://127\\.0\\.0\\.1:\\d+/api/v1/kyc/session/finish \\(@kyc/client\\) HTTP 200',
          '└─ POST /api/v1/kyc/session/finish \\(@hono/otel\\) HTTP 200',
          '└─ kyc\\.webhook\\.enqueue \\(@kyc/delivery-engine\\)',
          '└─ POST https://127\\.0\\.0\\.1:\\d+/kyc/webhook \\(@kyc/delivery-engine\\) attempt #1, HTTP 500',
          '└─ kyc\\.webhook\\.receive \\(@kyc/webhook-receiver\\) HTTP 500, handler_error',
          '└─ POST https://127\\.0\\.0\\.1:\\d+/kyc/webhook \\(@kyc/delivery-engine\\) attempt #2, HTTP 200',
          '└─ kyc\\.webhook\\.receive \\(@kyc/webhook-receiver\\) HTTP 200, processed',
        ].join('[^\\n]*\\n[^└]*'),
      ),
    );
    expect(output).toMatch(/done: every expectation held/);
    expect(code, output).toBe(0);
    expect(contacted, 'connections or lookups outside loopback').toBe('');
  }, 70_000);
});
