import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli } from './cli-process.js';
import { eventually } from './helpers.js';
import { loginEnv, startPlainReceiver, startSandboxProcess, trigger } from './support/listen-fixtures.js';
import { ALICE } from './support/listen-suite.js';

// A sandbox started with --https serves a self-signed certificate that no machine trusts yet.
let sandbox: Awaited<ReturnType<typeof startSandboxProcess>>;
let certificateFile = '';
beforeAll(async () => {
  sandbox = await startSandboxProcess([ALICE], 120, ['--https']);
  const [, file] = await sandbox.process.waitFor(/certificate: (\S+) \(self-signed/);
  certificateFile = file ?? '';
}, 60_000);
afterAll(() => sandbox?.close());

// CLI processes started one after another: a few seconds each on a quiet machine, up to 20 s a
// test beside the other stages of `pnpm test` (one such test timed out there at the default).
describe('kyc-sandbox listen and trigger against a sandbox started with --https', { timeout: 60_000 }, () => {
  it('names the untrusted certificate and the file to trust, and that advice works', async () => {
    expect(sandbox.url).toMatch(/^https:/);
    expect(sandbox.process.output().stdout).toContain(`NODE_EXTRA_CA_CERTS=${certificateFile}`);
    const untrusted = await trigger(sandbox.url, ALICE, ['approved']);
    expect(untrusted.code).toBe(1);
    expect(untrusted.stderr).toMatch(
      /presented a certificate this machine does not trust \(DEPTH_ZERO_SELF_SIGNED_CERT\)\. A sandbox started with --https prints its certificate's file: run this command with NODE_EXTRA_CA_CERTS=<that file>/,
    );
    expect(untrusted.stderr).not.toMatch(/is it running\?/);

    // Following the advice: the same commands with the printed file trusted.
    const receiver = await startPlainReceiver();
    const env = { ...loginEnv(sandbox.url, ALICE), NODE_EXTRA_CA_CERTS: certificateFile };
    const listener = spawnCli(['listen', '--forward-to', receiver.url], { env });
    try {
      await listener.waitFor(/^Ready! /m);
      const triggered = await spawnCli(['trigger', 'approved'], { env }).result();
      expect(triggered.code, triggered.stderr).toBe(0);
      const eventId = /webhook (evt_\w+)/.exec(triggered.stdout)?.[1];
      await eventually(() => (receiver.requests.some((r) => r.id === eventId) ? true : undefined));
    } finally {
      listener.child.kill('SIGTERM');
      await listener.result();
      await receiver.close();
    }
  }, 60_000);
});
