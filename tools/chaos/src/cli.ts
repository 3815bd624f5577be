/**
 * `pnpm chaos [--ci] [--only a,b] [--seed n] [--break name] [--json file] [--jobs n]
 * [--alone only|skip]`: runs every scenario of the chaos suite (or the named ones), prints each one's figures and a PASS/FAIL line
 * (a scenario's lines together, when it ends), and exits 1 when any invariant broke. `--ci` is the short run `pnpm test` calls; without it the
 * full run whose figures docs/reliability.md publishes. `--break <name>` runs a deliberately
 * broken build, which the scenario must catch (the run is then expected to FAIL).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { clockStep } from './scenarios/clock-step.js';
import { diskFull } from './scenarios/disk-full.js';
import { fuzz } from './scenarios/fuzz.js';
import { inbox } from './scenarios/inbox.js';
import { isolationScenarios } from './scenarios/isolation.js';
import { listenerKills } from './scenarios/listener-kills.js';
import { lockTamper } from './scenarios/lock-tamper.js';
import { networkFaults } from './scenarios/network-faults.js';
import { ownerLock } from './scenarios/owner-lock.js';
import { pgClockStep } from './scenarios/pg-clock-step.js';
import { pgNulByte } from './scenarios/pg-nul-byte.js';
import { pgRollingDeploy } from './scenarios/pg-rolling-deploy.js';
import { postgresWorkers } from './scenarios/postgres-workers.js';
import { receiverStorms } from './scenarios/receiver-storms.js';
import { sigstop } from './scenarios/sigstop.js';
import { soak } from './scenarios/soak.js';
import { sqliteKills } from './scenarios/sqlite-kills.js';
import { sqliteReader } from './scenarios/sqlite-reader.js';
import { storePartition } from './scenarios/store-partition.js';
import { twoCopies } from './scenarios/two-copies.js';
import type { Mode, Outcome, Scenario } from './support/scenario.js';
import { runScheduled } from './support/schedule.js';
import { seededRandom } from './support/seeded-random.js';

const SCENARIOS: readonly Scenario[] = [
  sqliteKills,
  ownerLock,
  diskFull,
  clockStep,
  lockTamper,
  twoCopies,
  sigstop,
  sqliteReader,
  postgresWorkers,
  pgNulByte,
  pgRollingDeploy,
  pgClockStep,
  networkFaults,
  receiverStorms,
  inbox,
  storePartition,
  listenerKills,
  ...isolationScenarios,
  fuzz,
  soak,
];

const BREAKS = [...new Set(SCENARIOS.flatMap((s) => s.breaks ?? []))].join(', ');
const USAGE = `usage: pnpm chaos [--ci] [--only a,b] [--seed n] [--break name] [--json file] [--jobs n]
  --ci       the CI-sized run (default: full size)
  --jobs     scenarios run at once (default 1); those whose verdict is a timing run alone
  --alone    only: just the scenarios marked alone; skip: all but those (the test pipeline runs
             the alone ones once nothing else runs)
  --only     scenarios to run: ${SCENARIOS.map((s) => s.name).join(', ')}
  --seed     the random seed (default: a new one, printed)
  --break    run a deliberately broken build the chosen scenarios must catch: ${BREAKS}
  --json     also write the results to this file
`;
const parsed = (() => {
  try {
    return parseArgs({
      options: {
        ci: { type: 'boolean', default: false },
        only: { type: 'string' },
        seed: { type: 'string' },
        break: { type: 'string' },
        json: { type: 'string' },
        jobs: { type: 'string', default: '1' },
        alone: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
})();
const { values } = parsed;
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const mode: Mode = values.ci ? 'ci' : 'full';
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
const jobs = Number(values.jobs);
if (!Number.isInteger(jobs) || jobs < 1) {
  process.stderr.write(`--jobs ${values.jobs}: a whole number of at least 1\n${USAGE}`);
  process.exit(2);
}
const only = values.only?.split(',').map((name) => name.trim());
const unknown = only?.filter((name) => !SCENARIOS.some((s) => s.name === name)) ?? [];
if (unknown.length > 0) {
  process.stderr.write(`unknown scenario ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.name).join(', ')}\n`);
  process.exit(2);
}
if (values.alone !== undefined && values.alone !== 'only' && values.alone !== 'skip') {
  process.stderr.write(`--alone ${values.alone}: only or skip\n${USAGE}`);
  process.exit(2);
}
const chosen = SCENARIOS.filter(
  (s) =>
    (only === undefined || only.includes(s.name)) &&
    (values.alone === undefined || (values.alone === 'only') === (s.alone === true)),
);
if (values.break !== undefined && !chosen.some((s) => s.breaks?.includes(values.break ?? ''))) {
  process.stderr.write(`--break ${values.break}: no chosen scenario has it; known: ${BREAKS}\n`);
  process.exit(2);
}

// Interrupted: exit through process.exit so every cleanup registered on 'exit' runs (private
// servers, network namespaces, the tmpfs).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

const out = (line = '') => process.stdout.write(`${line}\n`);
const commit = (() => {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
})();
const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
out(`chaos suite, ${mode} run, seed ${seed}, commit ${commit}, ${new Date().toISOString()}`);
out(`machine: ${machine}${jobs > 1 ? `, ${jobs} scenarios at a time (timing ones alone)` : ''}`);

const results = await runScheduled(chosen, jobs, async (scenario) => {
  const dir = mkdtempSync(join(tmpdir(), `kyc-chaos-${scenario.name}-`));
  const started = Date.now();
  // Buffered, so two scenarios running at once print their blocks whole, each when it ends.
  const lines = ['', `## ${scenario.name}: ${scenario.title}${jobs > 1 && scenario.alone ? ' (run alone)' : ''}`];
  let outcome: Outcome;
  try {
    outcome = await scenario.run({
      mode,
      random: seededRandom(seed ^ scenario.name.length),
      dir,
      breakWith: scenario.breaks?.includes(values.break ?? '') ? values.break : undefined,
      // The short run stays quiet; the long one shows it is alive.
      progress: (message) => (mode === 'full' ? process.stderr.write(`  … ${message}\n`) : undefined),
    });
  } catch (error) {
    outcome = {
      figures: [],
      failures: [`the scenario itself failed: ${error instanceof Error ? error.stack : String(error)}`],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  const width = Math.max(...outcome.figures.map(([label]) => label.length), 10);
  for (const [label, value] of outcome.figures) lines.push(`  ${label.padEnd(width)}  ${value}`);
  for (const failure of outcome.failures) lines.push(`  ✗ ${failure}`);
  lines.push(`${outcome.failures.length === 0 ? 'PASS' : 'FAIL'} ${scenario.name} (${seconds} s)`);
  for (const line of lines) out(line);
  return { name: scenario.name, title: scenario.title, seconds, outcome };
});

const failed = results.filter((r) => r.outcome.failures.length > 0);
out();
out(
  `${failed.length === 0 ? 'PASS' : 'FAIL'}: ${results.length - failed.length}/${results.length} scenarios held their invariants`,
);
if (values.json !== undefined) {
  writeFileSync(
    values.json,
    `${JSON.stringify({ mode, seed, commit, date: new Date().toISOString(), machine, results }, null, 2)}\n`,
  );
}
process.exit(failed.length === 0 ? 0 : 1);
