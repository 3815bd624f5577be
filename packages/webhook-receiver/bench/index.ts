import { execFileSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { runAudit } from './audit.js';
import { runHttp } from './http.js';
import { runInbox } from './inbox.js';
import { runMemory } from './memory.js';
import { runMicro } from './micro.js';
import { printTargets } from './targets.js';
import { runTelemetry } from './telemetry.js';

// Run under `flock /tmp/kyc-bench.lock pnpm bench` so two benchmarks never share the CPUs.
// `pnpm bench micro` / `pnpm bench http` / `pnpm bench audit` / `pnpm bench telemetry` / `pnpm bench memory` / `pnpm bench size` run one part;
// `pnpm bench http audit` runs two; `KYC_BENCH_ONLY=http,inbox pnpm bench` selects the same way
// (as the delivery engine's bench does). The targets are summed up at the end.
const sections = process.argv.length > 2 ? process.argv.slice(2) : (process.env.KYC_BENCH_ONLY?.split(',') ?? []);
const only = (name: string) => sections.length === 0 || sections.includes(name);
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
if (only('micro')) await runMicro();
if (only('http')) await runHttp();
if (only('audit')) await runAudit();
if (only('telemetry')) runTelemetry();
if (only('memory')) runMemory();
if (only('inbox')) await runInbox();
if (only('size')) {
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
printTargets();
console.log(
  `\n# load average ${loadavg()
    .map((value) => value.toFixed(1))
    .join(', ')} (1, 5, 15 min) at the end`,
);
