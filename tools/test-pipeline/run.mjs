#!/usr/bin/env node
// `pnpm test`: the build, then every check and suite, in two lanes that run at the same time,
// then what must run with nothing beside it (LAST). The stages are mostly waits (leases,
// timeouts, process starts, installs), not CPU, so on two cores two lanes take little more than
// the longer one. A stage's output is printed whole when it
// ends (so Vitest's summary lines reach the log as Vitest wrote them: `.ci/run` greps them), and
// the run ends with each stage's wall time. Exits 1 when any stage failed; every stage still runs
// (a lint error should not hide a failing test).
//
//   node tools/test-pipeline/run.mjs                # what `pnpm test` runs
//   node tools/test-pipeline/run.mjs --serial       # one stage at a time, in lane order
//   node tools/test-pipeline/run.mjs --only unit,chaos   # those stages (after the build)
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const out = join(root, '.tmp', 'test-timings');

/** A stage: a name, the command (run from the root), and variables added to its environment. */
const stage = (name, command, env = {}) => ({ name, command, env });
const pnpm = (...args) => ['pnpm', ...args];
const unitJson = (file) => ['--reporter=default', '--reporter=json', `--outputFile.json=${join(out, file)}`];
const BUILD = stage('build', pnpm('run', 'build'));
// Lane A: the type check, lint, the workspace's Vitest run (the long pole), then the chaos
// scenarios that tolerate a neighbour, two at a time. Lane B: what gets published (publint and
// attw, the release checks, the packed packages on five runtimes) and the docs site.
const LANES = [
  [
    stage('typecheck', pnpm('run', 'typecheck')),
    stage('lint', pnpm('run', 'lint')),
    stage('unit', pnpm('run', 'test:unit', ...unitJson('unit.json')), { KYC_TIMING_TESTS: 'skip' }),
    stage('chaos', pnpm('run', 'test:chaos', '--alone', 'skip')),
  ],
  [
    stage('packaging', pnpm('run', 'test:packaging')),
    stage('release', pnpm('run', 'test:release')),
    stage('packed', pnpm('run', 'test:packed', '--timing', 'skip')),
    stage('docs', pnpm('run', 'test:docs')),
  ],
];
// After the lanes, one at a time with nothing beside them: what a neighbour's load could fail
// without a fault. The test files whose verdict is a timing (tools/test-pipeline/timing-tests.json),
// in the workspace and against the packed install, and the chaos scenarios marked `alone`.
const LAST = [
  stage('unit-timing', pnpm('run', 'test:unit', ...unitJson('unit-timing.json')), { KYC_TIMING_TESTS: 'only' }),
  stage('packed-timing', ['node', 'tools/packed-suites/run.mjs', '--timing', 'only', '--reuse-install']),
  stage('chaos-alone', pnpm('run', 'test:chaos', '--alone', 'only')),
];

const args = process.argv.slice(2);
const serial = args.includes('--serial');
const onlyAt = args.indexOf('--only');
const only = onlyAt === -1 ? undefined : args[onlyAt + 1]?.split(',');
const known = [...LANES.flat(), ...LAST].map((s) => s.name);
const unknown = only?.filter((name) => !known.includes(name)) ?? [];
if (unknown.length > 0) {
  console.error(`unknown stage ${unknown.join(', ')}; known: ${known.join(', ')}`);
  process.exit(2);
}
const lanes = (serial ? [LANES.flat()] : LANES)
  .map((lane) => lane.filter((s) => only === undefined || only.includes(s.name)))
  .filter((lane) => lane.length > 0);
const last = LAST.filter((s) => only === undefined || only.includes(s.name));

const started = Date.now();
const clock = () => `${Math.round((Date.now() - started) / 1000)} s`.padStart(6);
const say = (line) => process.stdout.write(`[pipeline ${clock()}] ${line}\n`);
const results = [];

/** Runs one stage, its output kept until it ends (streamed instead when nothing runs beside it). */
function run({ name, command, env }, alone) {
  return new Promise((done) => {
    say(`${name}: ${command.join(' ')}`);
    const begun = Date.now();
    const child = spawn(command[0], command.slice(1), {
      cwd: root,
      stdio: alone ? 'inherit' : ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    const chunks = [];
    child.stdout?.on('data', (chunk) => chunks.push(chunk));
    child.stderr?.on('data', (chunk) => chunks.push(chunk));
    const finish = (status, error) => {
      const seconds = Math.round((Date.now() - begun) / 100) / 10;
      if (!alone) {
        process.stdout.write(`\n──── ${name} (${command.join(' ')}) ────\n`);
        process.stdout.write(Buffer.concat(chunks));
        if (error) process.stdout.write(`${error.stack}\n`);
        process.stdout.write(`──── end of ${name} ────\n\n`);
      }
      const ok = status === 0 && !error;
      say(`${name}: ${ok ? 'passed' : `FAILED (exit ${status})`} in ${seconds} s`);
      results.push({ name, ok, seconds });
      done(ok);
    };
    child.on('error', (error) => finish(1, error));
    child.on('close', (status) => finish(status));
  });
}

const build = await run(BUILD, true);
if (build) {
  await Promise.all(
    lanes.map(async (lane) => {
      for (const s of lane) await run(s, lanes.length === 1);
    }),
  );
  for (const s of last) await run(s, true);
}

const total = Math.round((Date.now() - started) / 1000);
const order = [BUILD, ...LANES.flat(), ...LAST].map((s) => s.name);
results.sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
process.stdout.write(`\nstage        wall time   result\n`);
for (const r of results)
  process.stdout.write(`${r.name.padEnd(12)} ${`${r.seconds} s`.padStart(9)}   ${r.ok ? 'passed' : 'FAILED'}\n`);
process.stdout.write(
  `${'total'.padEnd(12)} ${`${total} s`.padStart(9)}   ${serial ? 'one stage at a time' : `${lanes.length} lanes`}\n`,
);
mkdirSync(out, { recursive: true });
writeFileSync(
  join(out, 'stages.json'),
  `${JSON.stringify({ date: new Date().toISOString(), total, serial, results }, null, 2)}\n`,
);
process.exit(build && results.every((r) => r.ok) ? 0 : 1);
