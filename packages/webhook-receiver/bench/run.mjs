// Bundles the bench as the published build bundles the package (see bundleBench) and runs it with plain node.
// Output goes to .tmp/bench (ignored by git, outside the published files).
// `pnpm bench` runs every section; `pnpm bench <section>` one of them (see index.ts);
// `pnpm bench profile <kind> [options]` profiles one HTTP server (see profile-http.ts).
import { spawnSync } from 'node:child_process';
import { bundleBench } from '@kyc/test-support/bundle-bench';

const outdir = new URL('../.tmp/bench/', import.meta.url).pathname;
await bundleBench({
  entryPoints: [
    'bench/index.ts',
    'bench/http-server.ts',
    'bench/profile-http.ts',
    'bench/count-hooks.ts',
    'bench/memory-process.ts',
    'bench/telemetry-process.ts',
    'bench/register-telemetry.ts',
  ],
  outdir,
  outExtension: { '.js': '.mjs' },
});
const [first, ...rest] = process.argv.slice(2);
const entry = first === 'profile' ? 'profile-http.mjs' : 'index.mjs';
const args = first === 'profile' ? rest : process.argv.slice(2);
const result = spawnSync(process.execPath, [`${outdir}${entry}`, ...args], { stdio: 'inherit' });
process.exit(result.status ?? 1);
