import { execFileSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { runAudit } from './audit.js';
import { runHttp } from './http.js';
import { runMemory } from './memory.js';
import { runMicro } from './micro.js';
import { runTelemetry } from './telemetry.js';

// Run under `flock /tmp/kyc-bench.lock pnpm bench` so two benchmarks never share the CPUs.
// `pnpm bench micro` / `pnpm bench http` / `pnpm bench audit` / `pnpm bench telemetry` / `pnpm bench memory` / `pnpm bench size` run one part.
const only = process.argv[2];
let commit = 'unknown';
try {
  commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
} catch {
  // Not a git checkout: the commit stays unknown.
}
console.log(
  `# @kyc/webhook-receiver bench — node ${process.version}, ${cpus().length} × ${cpus()[0]?.model}, commit ${commit}, ` +
    `load average ${loadavg()[0]?.toFixed(1)} at start (a shared machine: compare ratios, not absolute figures)`,
);
if (only === undefined || only === 'micro') await runMicro();
if (only === undefined || only === 'http') await runHttp();
if (only === undefined || only === 'audit') await runAudit();
if (only === undefined || only === 'telemetry') runTelemetry();
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
