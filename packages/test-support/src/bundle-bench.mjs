// Plain JavaScript: the benches' `run.mjs` scripts import it with plain node, before any bundling.
import { build } from 'esbuild';

/**
 * Bundles a package's bench with esbuild the way the published build bundles the package:
 * minified names are not kept, unlike tsx, whose keepNames wrapper costs on every closure and
 * made the code look slower than what users run. Workspace packages (`@kyc/*`) are bundled from
 * source (the `@kyc/source` condition); everything from the registry stays external.
 *
 * @param {{ entryPoints: string[], outfile?: string, outdir?: string, outExtension?: Record<string, string> }} options
 * @example
 * await bundleBench({ entryPoints: ['bench/bench.ts'], outfile: new URL('../.tmp/bench.mjs', import.meta.url).pathname });
 */
export async function bundleBench(options) {
  await build({
    ...options,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    conditions: ['@kyc/source'],
    plugins: [
      {
        name: 'external-registry-packages',
        setup(context) {
          // Go regular expressions have no look-ahead: filter on bare specifiers, then let @kyc/* through.
          context.onResolve({ filter: /^[^./]/ }, (args) =>
            args.path.startsWith('@kyc/') ? undefined : { path: args.path, external: true },
          );
        },
      },
    ],
    logLevel: 'warning',
  });
}
