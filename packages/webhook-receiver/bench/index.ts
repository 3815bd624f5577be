import { runAudit } from './audit.js';
import { runHttp } from './http.js';
import { runMemory } from './memory.js';
import { runMicro } from './micro.js';

// Run under `flock /tmp/kyc-bench.lock pnpm bench` so two benchmarks never share the CPUs.
// `pnpm bench micro` / `pnpm bench http` / `pnpm bench audit` / `pnpm bench memory` / `pnpm bench size` run one part.
const only = process.argv[2];
console.log(`# @kyc/webhook-receiver bench — node ${process.version}`);
if (only === undefined || only === 'micro') await runMicro();
if (only === undefined || only === 'http') await runHttp();
if (only === undefined || only === 'audit') await runAudit();
if (only === undefined || only === 'memory') runMemory();
if (only === undefined || only === 'size') {
  const { bundleReport } = await import('../test/support/bundle-size.js');
  console.log('\n## Bundle (esbuild, minified + gzip, from the published builds: run `pnpm build` first)');
  const { BUNDLE_CEILINGS } = await import('../test/support/bundle-size.js');
  for (const [name, ceiling] of Object.entries(BUNDLE_CEILINGS)) {
    const bytes = (await bundleReport([name])).gzipBytes;
    console.log(
      `${name.padEnd(40)} ${String(bytes).padStart(6)} B  (ceiling ${ceiling} B, enforced by test/bundle-size.test.ts)`,
    );
  }
}
