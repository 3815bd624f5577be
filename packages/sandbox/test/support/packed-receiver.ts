import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const packagesDir = fileURLToPath(new URL('../../..', import.meta.url));
const fixture = fileURLToPath(new URL('../fixtures/signed-receiver.mjs', import.meta.url));

/** `pnpm pack` of one workspace package into `into`: the `file:` spec of its tarball. */
async function pack(name: string, into: string): Promise<string> {
  const { stdout } = await run('pnpm', ['pack', '--pack-destination', into, '--json'], {
    cwd: join(packagesDir, name),
    encoding: 'utf8',
  });
  return `file:${(JSON.parse(stdout) as { filename: string }).filename}`;
}

/**
 * The customer's side as npm gives it to them, done once for a whole test file: `@kyc/webhook-receiver`
 * packed (and `@kyc/contracts`, which it depends on and which is not on the registry), installed with
 * npm into a fresh project under `dir` as tools/release-checks' packed consumer does (`overrides` keeps
 * the receiver's dependency on the contracts on the tarball), with the receiver script copied in so it
 * resolves `@kyc/webhook-receiver` from that install and nothing from the workspace. Returns the
 * project's folder, where `startSignedReceiver` runs it.
 */
export async function installPackedReceiver(dir: string): Promise<string> {
  const tarballs = join(dir, 'tarballs');
  const consumer = join(dir, 'consumer');
  mkdirSync(tarballs, { recursive: true });
  mkdirSync(consumer, { recursive: true });
  const packed = {
    '@kyc/contracts': await pack('contracts', tarballs),
    '@kyc/webhook-receiver': await pack('webhook-receiver', tarballs),
  };
  const manifest = {
    name: 'kyc-signed-receiver',
    private: true,
    type: 'module',
    dependencies: { '@kyc/webhook-receiver': packed['@kyc/webhook-receiver'] },
    overrides: packed,
  };
  writeFileSync(join(consumer, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  // No optional peer: the receiver, its audit trail and its node adapter need none of them.
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', '--loglevel=error'], {
    cwd: consumer,
  });
  copyFileSync(fixture, join(consumer, 'signed-receiver.mjs'));
  return consumer;
}
