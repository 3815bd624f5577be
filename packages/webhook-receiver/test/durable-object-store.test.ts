import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorker, startWorker } from '@kyc/test-support/workerd';
import type { Miniflare } from 'miniflare';
import { afterAll, describe, expect, it } from 'vitest';
import { type DurableObjectNamespaceLike, durableObjectIdempotencyStore } from '../src/cloudflare.js';
import { storeConformanceSuite } from './support/store-conformance.js';

// The Durable Object runs in workerd (Miniflare), bundled from the sources as a Worker would be;
// the store talks to it through Miniflare's proxy of the namespace binding, so the one suite
// every store passes runs here unchanged. workerd keeps the time, so leases are waited out.
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const source = fileURLToPath(new URL('../src/cloudflare.ts', import.meta.url));

let started: Promise<Miniflare> | undefined;
function worker(): Promise<Miniflare> {
  started ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kyc-do-'));
    try {
      const entry = join(dir, 'worker.ts');
      writeFileSync(
        entry,
        `export { KycIdempotencyObject } from ${JSON.stringify(source)};\nexport default { fetch: () => new Response('') };\n`,
      );
      const script = await bundleWorker(entry);
      return (
        await startWorker({
          script,
          compatibilityDate: '2026-07-30',
          durableObjects: { IDEMPOTENCY: 'KycIdempotencyObject' },
        })
      ).miniflare;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  })();
  return started;
}
afterAll(async () => (await started)?.dispose());

// Miniflare types its proxy with @cloudflare/workers-types, which this package does not install.
const namespace = async () =>
  (await (await worker()).getDurableObjectNamespace('IDEMPOTENCY')) as unknown as DurableObjectNamespaceLike;

describe('Durable Object store (real workerd)', () => {
  storeConformanceSuite('durable object', async () => {
    const ns = await namespace();
    return {
      store: durableObjectIdempotencyStore(ns),
      replica: durableObjectIdempotencyStore(ns),
      advance: sleep,
      close: async () => {},
    };
  });

  it('keeps two prefixes apart on one namespace', async () => {
    const ns = await namespace();
    const key = `prefix:${Date.now()}`;
    const a = await durableObjectIdempotencyStore(ns, { keyPrefix: 'a:' }).claim(key, { leaseMs: 10_000 });
    const b = await durableObjectIdempotencyStore(ns, { keyPrefix: 'b:' }).claim(key, { leaseMs: 10_000 });
    expect([a.outcome, b.outcome]).toEqual(['claimed', 'claimed']);
  });

  it('refuses an operation it does not know with 400, and the store turns a failed call into an error', async () => {
    const ns = await namespace();
    const stub = ns.get(ns.idFromName('kyc:bad'));
    const answer = await stub.fetch('https://kyc-idempotency.invalid/', { method: 'POST', body: '{"op":"drop"}' });
    expect(answer.status).toBe(400);
    await answer.arrayBuffer();
    const broken = durableObjectIdempotencyStore({ idFromName: (name: string) => name, get: () => stub });
    await expect(broken.claim('k', { leaseMs: Number.NaN })).rejects.toThrow(/answered 400 to claim/);
  });

  it('refuses something that is not a namespace binding', () => {
    expect(() => durableObjectIdempotencyStore({} as never)).toThrow(/Durable Object namespace binding/);
  });
});
