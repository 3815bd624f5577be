// Bundles the bench with esbuild the way the published build bundles the package (minified names are not kept,
// unlike tsx, whose keepNames wrapper costs on every closure) and runs it with plain node.
// Output goes to .tmp/bench (ignored by git, outside the published files).
import { spawnSync } from 'node:child_process';
import { build } from 'esbuild';

const outdir = new URL('../.tmp/bench/', import.meta.url).pathname;
await build({
  entryPoints: [
    'bench/index.ts',
    'bench/http-server.ts',
    'bench/memory-process.ts',
    'bench/telemetry-process.ts',
    'bench/register-telemetry.ts',
  ],
  outdir,
  outExtension: { '.js': '.mjs' },
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
const result = spawnSync(process.execPath, [`${outdir}index.mjs`, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(result.status ?? 1);
