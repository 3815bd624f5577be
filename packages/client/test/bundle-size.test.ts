import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { measureBundle } from '../bench/bundle-size.js';

describe('bundle of `import { KycClient }` (esbuild, minified + gzip, platform neutral, ky + zod included)', () => {
  it('stays under its ceiling', async () => {
    const { gzipBytes, bytesByPackage } = await measureBundle();
    // Ceiling 41 KB, measured 39.1 KB gzip on 2026-11-22 — over the 12 KB target, knowingly:
    // ~34 KB of it is zod 4 *classic* (98 KB minified, its JSON-schema code included), pulled in
    // by the @kyc/contracts schemas the client must validate with; ky is ~5 KB and the client's
    // own code ~4 KB. Reaching 12 KB needs contracts to build its wire schemas with `zod/mini`
    // (see README, "Bundle size"). Lower the ceiling when that lands; raise it only with a note.
    expect(gzipBytes).toBeLessThanOrEqual(41 * 1024);
    // The client's own share, so growth in our code is caught even while zod dominates.
    expect(bytesByPackage['@kyc/client']).toBeGreaterThan(0);
    expect(bytesByPackage['@kyc/client']).toBeLessThanOrEqual(14 * 1024);
    expect(bytesByPackage.zod).toBeGreaterThan(0);
    expect(bytesByPackage.ky).toBeGreaterThan(0);
  });

  it('uses Web-standard APIs only: no Buffer, no process, no node:* import in the client source', async () => {
    const { inputs } = await measureBundle();
    const ours = inputs.filter((input) => input.startsWith('src/'));
    expect(ours.length).toBeGreaterThan(5);
    for (const input of ours) {
      const source = readFileSync(new URL(`../${input}`, import.meta.url), 'utf8').replace(
        /\/\/.*$|\/\*[\s\S]*?\*\//gm,
        '',
      );
      expect(source, input).not.toMatch(/\bBuffer\b|\bprocess\.|from 'node:|require\(/);
    }
  });
});
