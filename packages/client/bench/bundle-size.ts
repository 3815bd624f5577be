import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));

/** Size of one esbuild bundle, and which packages its minified bytes come from. */
export interface BundleReport {
  readonly minifiedBytes: number;
  readonly gzipBytes: number;
  /** Minified bytes in the output per source package (`ky`, `zod`, `@kyc/contracts`, `@kyc/client`). */
  readonly bytesByPackage: Readonly<Record<string, number>>;
  /** Every input file esbuild resolved, including those tree-shaken to nothing. */
  readonly inputs: readonly string[];
  /** Minified bytes in the output per input file, for the files that kept any. */
  readonly bytesByInput: Readonly<Record<string, number>>;
}

function packageOf(path: string): string {
  const inModules = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (inModules?.[1]) return inModules[1];
  // Workspace sources appear relative to this package: `src/…` is ours, `../x/src/…` a sibling.
  const sibling = /^\.\.\/([^/]+)\//.exec(path);
  if (sibling?.[1]) return `@kyc/${sibling[1]}`;
  return path.startsWith('src/') ? '@kyc/client' : path;
}

/**
 * What the client is judged against (issue 15, DESIGN "Performance targets"): its two
 * dependencies on their own in the same kind of bundle, ky and the zod/mini schemas it validates
 * with (`@kyc/contracts/service-api`), bundled together so gzip sees them as it does in the
 * client's bundle.
 */
export const DEPENDENCY_FLOOR_ENTRY =
  "export { default } from 'ky'; export { apiErrorBodyMiniSchema, sessionDetailsMiniSchema } from '@kyc/contracts/service-api';";

/**
 * Bundles what a user gets from `import { KycClient } from '@kyc/client'` the way a web or edge
 * app would: esbuild, ESM, minified, platform neutral (so a `node:` import would fail the
 * build), ky and zod included, then gzip. `platform: 'node'` is for packages that only build
 * for Node (Node built-ins left out, as a Node bundle does).
 */
export async function measureBundle(
  contents = "export { KycClient } from './src/index.ts';",
  resolveDir = packageRoot,
  platform: 'neutral' | 'node' = 'neutral',
): Promise<BundleReport> {
  const result = await build({
    stdin: { contents, resolveDir, loader: 'ts', sourcefile: 'entry.ts' },
    // Paths in the metafile are relative to this; fixed so the package grouping holds from any cwd.
    absWorkingDir: packageRoot,
    bundle: true,
    minify: true,
    format: 'esm',
    platform,
    mainFields: ['module', 'main'],
    conditions: ['@kyc/source'],
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]?.contents ?? new Uint8Array();
  const bytesByPackage: Record<string, number> = {};
  const bytesByInput: Record<string, number> = {};
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const name = packageOf(input);
      bytesByPackage[name] = (bytesByPackage[name] ?? 0) + bytesInOutput;
      if (bytesInOutput > 0) bytesByInput[input] = (bytesByInput[input] ?? 0) + bytesInOutput;
    }
  }
  return {
    minifiedBytes: code.byteLength,
    gzipBytes: gzipSync(code, { level: 9 }).byteLength,
    bytesByPackage,
    inputs: Object.keys(result.metafile.inputs),
    bytesByInput,
  };
}
