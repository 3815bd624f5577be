import { fileURLToPath } from 'node:url';
import { bundleWorker, startWorker } from '@kyc/test-support/workerd';
import type { Miniflare } from 'miniflare';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRequest, samples } from '../src/testing.js';

// workerd runs a module's top level under its start-up rules: no random values, no timers, no
// I/O. A receiver, a store or a test helper made there must not break them (the memory store once
// drew its hash seed when made, and workerd refused the whole Worker). Bundled as wrangler
// bundles it, run in workerd through Miniflare.
const KEY = 'kyc_module_scope_Wq4Lx9Zc2Rv7';
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
let miniflare: Miniflare | undefined;
let base: URL;

beforeAll(async () => {
  const script = await bundleWorker(fileURLToPath(new URL('./workerd/module-scope-worker.ts', import.meta.url)));
  ({ miniflare, url: base } = await startWorker({
    script,
    compatibilityDate: '2026-07-30',
    bindings: { KYC_AUTH_KEY: KEY, KYC_SIGNING_SECRET: SECRET },
    durableObjects: { KYC_IDEMPOTENCY: 'KycIdempotencyObject' },
  }));
}, 60_000);
afterAll(() => miniflare?.dispose());

/** Sends `request` (built by the test kit) to the Worker's `path`. */
async function send(path: string, request: Request): Promise<number> {
  const response = await fetch(new URL(path, base), {
    method: request.method,
    headers: request.headers,
    body: await request.arrayBuffer(),
  });
  await response.arrayBuffer();
  return response.status;
}

function signed(body: string, id: string): Record<string, string> {
  const at = new Date();
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(SECRET).sign(id, at, body),
  };
}

describe('a Worker that builds its receivers at module scope (workerd)', () => {
  it.each(['/default', '/memory', '/durable-object', '/everything'])(
    '%s: starts, and answers a delivery, its duplicate, a wrong key and a non-JSON body',
    async (path) => {
      const sessionId = `module-scope${path.replace('/', '-')}`;
      const payload = { ...structuredClone(samples.status), sessionId };
      const body = JSON.stringify(payload);
      const headers = signed(body, `evt${path.replace('/', '-')}`);
      const delivery = () => createTestRequest({ payload: body, authKey: KEY, headers });
      expect(await send(path, delivery())).toBe(200);
      expect(await send(path, delivery())).toBe(200);
      expect(
        await send(path, createTestRequest({ payload: body, authKey: 'kyc_not_the_key_0123456789', headers })),
      ).toBe(401);
      const notJson = '{"sessionId": "module-scope", ';
      expect(
        await send(
          path,
          createTestRequest({ payload: notJson, authKey: KEY, headers: signed(notJson, 'evt-not-json') }),
        ),
      ).toBe(400);
    },
  );

  it('ran each handler once per event, wrote the audit trail, and used the test kit made at module scope', async () => {
    const state = (await (await fetch(new URL('/state', base))).json()) as Record<string, unknown>;
    expect(state).toEqual({
      handled: [
        'default:module-scope-default',
        'memory:module-scope-memory',
        'durable-object:module-scope-durable-object',
        'everything:module-scope-everything',
        `memory:${samples.status.sessionId}`,
      ],
      audited: ['processed', 'duplicate', 'unauthorized', 'invalid'],
      fixture: 200,
    });
  });
});
