import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/**
 * Gzipped-size ceilings of the core bundle, enforced by test/bundle-size.test.ts and printed by the bench.
 * `createWebhookReceiver`: 36 KB, measured 33.9 KB on 2026-11-22: ~29 KB of it is zod v4 (classic),
 * which @kyc/contracts' normalizeWebhookBody uses to explain rejected fields; the receiver's own
 * code is ~4 KB. Raise a ceiling only with a note saying what grew and why.
 */
export const BUNDLE_CEILINGS = { verifyAuthorization: 1024, createWebhookReceiver: 36 * 1024 } as const;

const packageRoot = fileURLToPath(new URL('../..', import.meta.url));

/** What a bundle weighs and which source files went into it. */
export interface BundleReport {
  readonly gzipBytes: number;
  readonly inputs: readonly string[];
}

/**
 * Minified + gzipped size of an edge bundle (`platform: 'neutral'`, so any `node:*` import
 * fails the build) that imports `names` from the package's core entry.
 */
export async function bundleReport(names: readonly string[]): Promise<BundleReport> {
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
    // Bundle the TypeScript sources, as the published dist is built from them.
    conditions: ['@kyc/source', 'import'],
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const output = result.outputFiles[0];
  if (output === undefined) throw new Error('esbuild produced no output');
  return {
    gzipBytes: gzipSync(output.contents, { level: 9 }).byteLength,
    inputs: Object.keys(result.metafile.inputs),
  };
}
