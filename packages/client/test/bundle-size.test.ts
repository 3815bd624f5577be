import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEPENDENCY_FLOOR_ENTRY, measureBundle } from '../bench/bundle-size.js';

const report = measureBundle();
// The floor the client is judged against: ky + the zod/mini schemas alone (see bench/bundle-size.ts).
const floor = measureBundle(DEPENDENCY_FLOOR_ENTRY);

describe('bundle of `import { KycClient }` (esbuild, minified + gzip, platform neutral, ky + zod included)', () => {
  it('adds at most its own-code budget to ky + zod/mini', async () => {
    const { gzipBytes, bytesByPackage } = await report;
    const dependencies = (await floor).gzipBytes;
    // Measured 2026-11-25 (Node 24, ky 2.1.0, zod 4): ky + zod/mini schemas 15.8 KB gzip, the
    // client 20.7 KB, so the client's own code adds 4.9 KB. ky 1 → 2 is what moved the total
    // (16.9 → 20.7 KB): ky grew from ~4.7 to 8.7 KB gzip, our code did not change. Issue 15's
    // target is ky + zod/mini + 3 KB; until the retry loop moves onto ky's own retry this holds
    // the current 5 KB so nothing grows. Lower it when something shrinks; raise it only with a
    // note saying what grew and why.
    // Raised to 5.75 KB (issue 11): OpenTelemetry tracing — the optional-peer lookup of
    // @opentelemetry/api and one HTTP CLIENT span per attempt — measured +0.6 KB gzip.
    const ownBudget = 5.75 * 1024;
    expect(gzipBytes - dependencies).toBeLessThanOrEqual(ownBudget);
    // The client's own share (minified, measured 14.1 KB; 15.7 KB with the tracing of issue 11),
    // so growth in our code is caught too.
    expect(bytesByPackage['@kyc/client']).toBeGreaterThan(0);
    expect(bytesByPackage['@kyc/client']).toBeLessThanOrEqual(16 * 1024);
    expect(bytesByPackage.zod).toBeGreaterThan(0);
    expect(bytesByPackage.ky).toBeGreaterThan(0);
  });

  it('takes zod/mini only: no classic zod and no locale in the output', async () => {
    const { bytesByInput } = await report;
    const zodFiles = Object.keys(bytesByInput).filter((input) => input.includes('node_modules/zod/'));
    expect(zodFiles.some((input) => input.includes('/v4/mini/'))).toBe(true);
    expect(zodFiles.filter((input) => /\/v4\/(classic|locales)\//.test(input))).toEqual([]);
  });

  it('uses Web-standard APIs only and zod as a namespace import, in the client source', async () => {
    const { inputs } = await report;
    const ours = inputs.filter((input) => input.startsWith('src/'));
    expect(ours.length).toBeGreaterThan(5);
    for (const input of ours) {
      const source = readFileSync(new URL(`../${input}`, import.meta.url), 'utf8').replace(
        /\/\/.*$|\/\*[\s\S]*?\*\//gm,
        '',
      );
      expect(source, input).not.toMatch(/\bBuffer\b|\bprocess\.|from 'node:|require\(/);
      // `import { z } from 'zod'` drags every locale into an esbuild bundle.
      expect(source, input).not.toMatch(/import\s+(type\s+)?\{[^}]*\}\s+from\s+'zod(\/[^']*)?'/);
      // The main entry of @kyc/contracts carries the classic zod schemas; the client takes the subpath.
      expect(source, input).not.toMatch(/from '@kyc\/contracts'/);
    }
  });
});
