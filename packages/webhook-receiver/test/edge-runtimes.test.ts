import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { runtimeBinary } from '@kyc/test-support';
import { build } from 'esbuild';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The core claims to run on any runtime with Web-standard APIs. This builds it the way an edge
// bundler would (esbuild, platform "neutral": no Node built-ins can resolve) and runs one script
// with it under Bun and Deno, whose binaries come from their npm packages.
const run = promisify(execFile);
const packageRoot = fileURLToPath(new URL('..', import.meta.url));

// A missing binary fails the run (runtimeBinary throws): every runtime we name is a test on it.
const runtimes = [
  { name: 'bun', args: [] },
  { name: 'deno', args: ['run', '--quiet', '--no-prompt', '--no-config'] },
] as const;

const KEY = 'kyc_edge_Wq4Lx9Zc2Rv7Tn1B';
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

const SCRIPT = `
import { createWebhookReceiver, parseWebhook, verifyAuthorization, WebhookError } from '@kyc/webhook-receiver';
import { samples } from '@kyc/webhook-receiver/testing';
import { auditTrail, callbackAuditSink, verifyAuditLog } from '@kyc/webhook-receiver/audit';
const signed = JSON.parse(SIGNED);
const runs = [];
const entries = [];
const receiver = createWebhookReceiver({
  audit: auditTrail({ sink: callbackAuditSink((batch) => { entries.push(...batch); }) }),
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
// The audit trail hashes with Web Crypto on every runtime.
results.audit = entries.map((entry) => entry.outcome);
results.chain = (await verifyAuditLog(entries)).ok;
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
    it(`runs every answer of the table under ${runtime.name}`, async () => {
      const { stdout } = await run(runtimeBinary(runtime.name), [...runtime.args, script], {
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
        audit: ['processed', 'duplicate', 'unauthorized', 'unauthorized', 'invalid', 'too_large'],
        chain: true,
      });
    });
  }
});
