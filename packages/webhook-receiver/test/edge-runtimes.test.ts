import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { servicesRequired } from '@kyc/test-support';
import { build } from 'esbuild';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The core claims to run on any runtime with Web-standard APIs. This builds it the way an edge
// bundler would (esbuild, platform "neutral": no Node built-ins can resolve) and runs one script
// with it under Bun and Deno, whose binaries come from their npm packages.
const run = promisify(execFile);
const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);

/** The platform binary an npm package ships (its own launcher needs a postinstall we do not run). */
function binary(launcher: string, platformPackage: string, path: string): string | undefined {
  try {
    const from = createRequire(require.resolve(`${launcher}/package.json`));
    const file = join(dirname(from.resolve(`${platformPackage}/package.json`)), path);
    return existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

const runtimes = [
  { name: 'bun', path: binary('bun', `@oven/bun-${process.platform}-${process.arch}`, 'bin/bun'), args: [] },
  {
    name: 'deno',
    path: binary(
      'deno',
      `@deno/${process.platform}-${process.arch}${process.platform === 'linux' ? '-glibc' : ''}`,
      'deno',
    ),
    args: ['run', '--quiet', '--no-prompt', '--no-config'],
  },
] as const;

const KEY = 'kyc_edge_Wq4Lx9Zc2Rv7Tn1B';
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

const SCRIPT = `
import { createWebhookReceiver, parseWebhook, verifyAuthorization, WebhookError } from '@kyc/webhook-receiver';
import { samples } from '@kyc/webhook-receiver/testing';
const signed = JSON.parse(SIGNED);
const runs = [];
const receiver = createWebhookReceiver({
  authKeys: ${JSON.stringify(KEY)},
  signingSecrets: ${JSON.stringify(SECRET)},
  logger: {},
  onEvent: async (event) => { runs.push(event.shape); },
});
const headers = (authorization) => ({
  authorization, 'content-type': 'application/json',
  'webhook-id': signed.id, 'webhook-timestamp': signed.timestamp, 'webhook-signature': signed.signature,
});
const send = async (init) => (await receiver.handle(new Request('https://receiver.test/kyc', init))).status;
const good = { method: 'POST', headers: headers('Bearer ${KEY}'), body: signed.body };
let parsedObject;
try { parseWebhook({ sessionId: 'x' }); } catch (error) { parsedObject = error instanceof WebhookError ? error.code : 'other'; }
const results = {
  runtime: typeof Bun !== 'undefined' ? 'bun' : typeof Deno !== 'undefined' ? 'deno' : 'other',
  ok: await send(good),
  duplicate: await send(good),
  wrongKey: await send({ ...good, headers: headers('Bearer kyc_edge_not_the_key_000') }),
  tampered: await send({ ...good, body: signed.body.replace('APPROVED', 'REJECTED') }),
  get: await send({ method: 'GET' }),
  tooLarge: await send({ ...good, body: signed.body + ' '.repeat(1024 * 1024) }),
  runs,
  verify: verifyAuthorization('bearer ${KEY}', ['kyc_edge_other_key_00000', '${KEY}']).ok,
  parsedObject,
  fromBytes: parseWebhook(new TextEncoder().encode(JSON.stringify(samples.v1)).buffer).shape,
};
console.log(JSON.stringify(results));
`;

describe('the core on other runtimes (Bun, Deno)', () => {
  let dir: string;
  let script: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kyc-edge-'));
    const body = JSON.stringify({ sessionId: 'sess_edge_1', status: 'APPROVED', timestamp: new Date().toISOString() });
    const at = new Date();
    const signed = {
      id: 'msg_edge_1',
      timestamp: String(Math.floor(at.getTime() / 1000)),
      signature: new Webhook(SECRET).sign('msg_edge_1', at, body),
      body,
    };
    const result = await build({
      stdin: { contents: SCRIPT, resolveDir: packageRoot, loader: 'js' },
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      mainFields: ['module', 'main'],
      conditions: ['@kyc/source', 'import'],
      define: { SIGNED: JSON.stringify(JSON.stringify(signed)) },
      write: false,
      logLevel: 'silent',
    });
    script = join(dir, 'edge.mjs');
    writeFileSync(script, result.outputFiles[0]?.contents ?? '');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const runtime of runtimes) {
    const available = runtime.path !== undefined;
    if (!available && !servicesRequired) {
      console.warn(`\n!!! SKIPPING the ${runtime.name} run: its npm binary is not installed for this platform.\n`);
    }
    it.skipIf(!available && !servicesRequired)(`runs every answer of the table under ${runtime.name}`, async () => {
      if (runtime.path === undefined) throw new Error(`${runtime.name} is not installed (KYC_REQUIRE_SERVICES=1)`);
      const { stdout } = await run(runtime.path, [...runtime.args, script], {
        timeout: 30_000,
        env: { PATH: process.env.PATH ?? '', HOME: dir, DENO_DIR: join(dir, 'deno'), NO_COLOR: '1' },
      });
      expect(JSON.parse(stdout.trim())).toEqual({
        runtime: runtime.name,
        ok: 200,
        duplicate: 200,
        wrongKey: 401,
        tampered: 401,
        get: 405,
        tooLarge: 413,
        runs: ['status'],
        verify: true,
        parsedObject: 'parsed_body',
        fromBytes: 'v1',
      });
    });
  }
});
