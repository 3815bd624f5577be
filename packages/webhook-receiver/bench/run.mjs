// Bundles the bench as the published build bundles the package (see bundleBench) and runs it with plain node.
// Output goes to .tmp/bench (ignored by git, outside the published files).
import { spawnSync } from 'node:child_process';
import { bundleBench } from '@kyc/test-support/bundle-bench';

const outdir = new URL('../.tmp/bench/', import.meta.url).pathname;
await bundleBench({
  entryPoints: [
    'bench/index.ts',
    'bench/http-server.ts',
    'bench/memory-process.ts',
    'bench/telemetry-process.ts',
    'bench/register-telemetry.ts',
  ],
  outdir,
  outExtension: { '.js': '.mjs' },
});
const result = spawnSync(process.execPath, [`${outdir}index.mjs`, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(result.status ?? 1);
