import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/**
 * Gzipped-size ceilings of the core bundle as a user gets it (bundled from the published
 * `dist` of this package and of `@kyc/contracts`), enforced by test/bundle-size.test.ts and
 * printed by the bench. `createWebhookReceiver`: 12 KB, measured 10.9 KB on 2026-11-23, since
 * the receiver reads webhooks through the zod-free `@kyc/contracts/webhook-reader` (it was
 * 41 KB when classic zod came along). Raise a ceiling only with a note saying what grew and why.
 * 2026-11-25, 12 KB → 13 KB: the request-finished seam (0.4 KB) and the OpenTelemetry listener
 * on it. The audit trail stays out of this bundle: its option is built by `auditTrail()`, which
 * only a receiver that keeps one imports (as a plain option it cost every receiver 1.3 KB and
 * put the bundle at 13.7 KB). Measured 12.1 KB.
 * 2026-11-26, 13 KB → 14 KB: already 13.3 KB (13 631 B) at 4d5543f, before issue 21, from the
 * packages it bundles; issue 21 adds 0.4 KB (14 056 B): the request path split by what it waits
 * for (checkHead, a sync and an async handler path, listeners awaited only when they answer with
 * a promise), the request input and trace as classes, and `handle`'s one-call body read.
 * 2026-11-28, 14 KB → 14.5 KB: already 14 320 B, 16 B under 14 KB; issue 31 adds ~0.25 KB
 * (from the sources: 13 371 → 13 601 B), nearly all of it the memory store's answers taken at
 * once beside its promises (idempotency/immediate-store.ts, ~190 B), which saves each request
 * two promises and two turns of the microtask queue (3% of the receiver's instructions).
 */
export const BUNDLE_CEILINGS = { verifyAuthorization: 1024, createWebhookReceiver: 14.5 * 1024 } as const;

const packageRoot = fileURLToPath(new URL('../..', import.meta.url));

/** What a bundle weighs and which source files went into it. */
export interface BundleReport {
  readonly gzipBytes: number;
  /** Absolute paths, so a caller reads them from any working directory. */
  readonly inputs: readonly string[];
}

/**
 * Minified + gzipped size of an edge bundle (`platform: 'neutral'`, so any `node:*` import
 * fails the build) that imports `names` from the package's core entry: from the published
 * builds (run `pnpm build` first), or with `from: 'source'` from the TypeScript sources.
 */
export async function bundleReport(
  names: readonly string[],
  { from = 'published' }: { readonly from?: 'published' | 'source' } = {},
): Promise<BundleReport> {
  const result = await build({
    stdin: {
      contents: `export { ${names.join(', ')} } from '@kyc/webhook-receiver';`,
      resolveDir: packageRoot,
      loader: 'ts',
    },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    conditions: from === 'source' ? ['@kyc/source', 'import'] : ['import'],
    write: false,
    metafile: true,
    logLevel: 'silent',
    // Metafile paths are relative to this; fixed, so they mean the same from the root or the package.
    absWorkingDir: packageRoot,
  });
  const output = result.outputFiles[0];
  if (output === undefined) throw new Error('esbuild produced no output');
  return {
    gzipBytes: gzipSync(output.contents, { level: 9 }).byteLength,
    inputs: Object.keys(result.metafile.inputs)
      .filter((input) => input !== '<stdin>')
      .map((input) => resolve(packageRoot, input)),
  };
}
