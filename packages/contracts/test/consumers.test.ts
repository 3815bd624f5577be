import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Runs after `pnpm build` (the root test command builds first): proves the published files
// load in plain Node from both module systems, outside Vite's resolver.
const packageDir = fileURLToPath(new URL('..', import.meta.url));

function node(code: string, type: 'commonjs' | 'module'): string {
  return execFileSync(process.execPath, [`--input-type=${type}`, '-e', code], { cwd: packageDir, encoding: 'utf8' });
}

describe('published build', () => {
  it('exists (run `pnpm build` first)', () => {
    expect(existsSync(`${packageDir}/dist/index.cjs`)).toBe(true);
    expect(existsSync(`${packageDir}/dist/index.js`)).toBe(true);
  });

  it('loads from a CommonJS consumer', () => {
    const out = node(
      "const c = require('@kyc/contracts'); console.log(c.WEBHOOK_USER_AGENT, c.normalizeWebhookBody({ id: 'x' }).ok)",
      'commonjs',
    );
    expect(out.trim()).toBe('Service-Webhook/1.0 true');
  });

  it('loads from an ES module consumer', () => {
    const out = node(
      "import { API_BASE_PATH, webhookV1Schema, sampleV1Webhook } from '@kyc/contracts'; console.log(API_BASE_PATH, webhookV1Schema.safeParse(sampleV1Webhook).success)",
      'module',
    );
    expect(out.trim()).toBe('/api/v1/kyc true');
  });

  it('serves the zod/mini service-api entry to both module systems, without classic zod', () => {
    const check =
      'console.log(m.API_BASE_PATH, m.sessionDetailsMiniSchema.safeParse({}).success, typeof m.sessionDetailsSchema)';
    expect(node(`const m = require('@kyc/contracts/service-api'); ${check}`, 'commonjs').trim()).toBe(
      '/api/v1/kyc false undefined',
    );
    expect(node(`import * as m from '@kyc/contracts/service-api'; ${check}`, 'module').trim()).toBe(
      '/api/v1/kyc false undefined',
    );
  });

  it('serves the zod-free webhook-reader entry to both module systems', () => {
    const check =
      'console.log(m.HEADERS.webhookId, m.normalizeWebhookBody(m.sampleStatusWebhook).ok, typeof m.webhookV1Schema)';
    expect(node(`const m = require('@kyc/contracts/webhook-reader'); ${check}`, 'commonjs').trim()).toBe(
      'webhook-id true undefined',
    );
    expect(node(`import * as m from '@kyc/contracts/webhook-reader'; ${check}`, 'module').trim()).toBe(
      'webhook-id true undefined',
    );
  });

  it('ships the contract: the openapi entry and the generated JSON files, to both module systems', () => {
    const cjs = node(
      "const d = require('@kyc/contracts/openapi.json'); const s = require('@kyc/contracts/schemas/webhook.json'); const { buildOpenApiDocument } = require('@kyc/contracts/openapi'); console.log(d.openapi, s.$schema, JSON.stringify(buildOpenApiDocument()) === JSON.stringify(d))",
      'commonjs',
    );
    expect(cjs.trim()).toBe('3.1.0 https://json-schema.org/draft/2020-12/schema true');
    const esm = node(
      "import d from '@kyc/contracts/openapi.json' with { type: 'json' }; import s from '@kyc/contracts/schemas/webhook-v1.json' with { type: 'json' }; console.log(Object.keys(d.webhooks).join(), s.title)",
      'module',
    );
    expect(esm.trim()).toBe('session.completed Completion webhook, v1 shape');
  });
});
