import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { nodeRuntimes } from '../src/index.js';

// The packages promise `engines: node ^22.19 || ^24.11 || >=26`. This suite runs their published builds (made
// by `pnpm build`, which the root test command runs first) under Node 22, 24 and 26, from
// both module systems, outside Vite's resolver. The delivery engine and the sandbox load
// better-sqlite3, a native addon built for the Node that installed it; they are tested on the
// Node that runs the suite.
const packages = fileURLToPath(new URL('../..', import.meta.url));

function run(node: string, pkg: string, args: readonly string[]): string {
  return execFileSync(node, args, { cwd: `${packages}${pkg}`, encoding: 'utf8', timeout: 30_000 }).trim();
}
const evaluate = (node: string, pkg: string, type: 'commonjs' | 'module', code: string) =>
  run(node, pkg, [`--input-type=${type}`, '-e', code]);

it.each(['contracts', 'client', 'webhook-receiver'])('%s is built', (pkg) => {
  expect(existsSync(`${packages}${pkg}/dist/index.js`)).toBe(true);
  expect(existsSync(`${packages}${pkg}/dist/index.cjs`)).toBe(true);
});

describe.each(nodeRuntimes())('published builds on $name', ({ path }) => {
  it('@kyc/contracts loads from CommonJS and ESM', () => {
    expect(
      evaluate(
        path,
        'contracts',
        'commonjs',
        "const c = require('@kyc/contracts'); console.log(c.WEBHOOK_USER_AGENT, c.normalizeWebhookBody({ id: 'x' }).ok)",
      ),
    ).toBe('Service-Webhook/1.0 true');
    expect(
      evaluate(
        path,
        'contracts',
        'module',
        "import { API_BASE_PATH, webhookV1Schema, sampleV1Webhook } from '@kyc/contracts'; console.log(API_BASE_PATH, webhookV1Schema.safeParse(sampleV1Webhook).success)",
      ),
    ).toBe('/api/v1/kyc true');
  });

  it('@kyc/client makes a real call from CommonJS and ESM', () => {
    expect(run(path, 'client', ['test/packaging/smoke.cjs'])).toBe('cjs smoke: ok');
    expect(run(path, 'client', ['test/packaging/smoke.mjs'])).toBe('esm smoke: ok');
  });

  it('@kyc/webhook-receiver handles a delivery from ESM and loads its adapters from CommonJS', () => {
    const handled = evaluate(
      path,
      'webhook-receiver',
      'module',
      `import { createWebhookReceiver } from '@kyc/webhook-receiver';
       import { createTestRequest, samples } from '@kyc/webhook-receiver/testing';
       const authKey = 'runtime-check-key-0123456789';
       const seen = [];
       const receiver = createWebhookReceiver({ authKeys: authKey, onEvent: (event) => { seen.push(event.shape); } });
       const first = await receiver.handle(createTestRequest({ payload: samples.status, authKey }));
       const again = await receiver.handle(createTestRequest({ payload: samples.status, authKey }));
       const wrong = await receiver.handle(createTestRequest({ payload: samples.status, authKey: 'x'.repeat(20) }));
       console.log(first.status, again.status, wrong.status, seen.join());`,
    );
    expect(handled).toBe('200 200 401 status');
    expect(
      evaluate(
        path,
        'webhook-receiver',
        'commonjs',
        `const node = require('@kyc/webhook-receiver/node');
         const { memoryIdempotencyStore } = require('@kyc/webhook-receiver');
         console.log(typeof node.toNodeHandler, typeof memoryIdempotencyStore().claim)`,
      ),
    ).toBe('function function');
  });
});
