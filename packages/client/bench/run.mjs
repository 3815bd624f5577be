// Bundles the bench with esbuild the way the published build bundles the package (minified names are not kept,
// unlike tsx, whose keepNames wrapper costs on every closure and made the client look slower than what users
// run) and runs it with plain node. The output sits one folder below the package root, as bench/ does, so the
// bundle lines resolve the package the same way from source and from the bundle; .tmp/ is ignored by git and
// outside the published files.
import { spawnSync } from 'node:child_process';
import { build } from 'esbuild';

const outfile = new URL('../.tmp/bench.mjs', import.meta.url).pathname;
await build({
  entryPoints: ['bench/bench.ts'],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  conditions: ['@kyc/source'],
  // Workspace packages (@kyc/*) are bundled from source; everything from the registry stays external.
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
const result = spawnSync(process.execPath, [...process.execArgv, outfile, ...process.argv.slice(2)], {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
