// Bundles the bench as the published build bundles the package (see bundleBench) and runs it with plain node.
// The output sits one folder below the package root, as bench/ does, so the bundle lines resolve the package
// the same way from source and from the bundle; .tmp/ is ignored by git and outside the published files.
import { spawnSync } from 'node:child_process';
import { bundleBench } from '@kyc/test-support/bundle-bench';

const outfile = new URL('../.tmp/bench.mjs', import.meta.url).pathname;
await bundleBench({ entryPoints: ['bench/bench.ts'], outfile });
const result = spawnSync(process.execPath, [...process.execArgv, outfile, ...process.argv.slice(2)], {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
