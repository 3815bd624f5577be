#!/usr/bin/env node
// The slowest test files and tests of Vitest runs, from their JSON reporter's files (`pnpm test`
// writes .tmp/test-timings/unit.json and unit-timing.json), as Markdown tables for docs/toolchain.md, and the stage
// table the test pipeline wrote (.tmp/test-timings/stages.json). What each slow test waits for is
// not in the file: docs/toolchain.md says it beside the figures.
//
//   node tools/test-timings/report.mjs [vitest.json ...] [--top 20]
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt === -1 ? 20 : Number(args[topAt + 1]);
const given = args.filter((arg, i) => !arg.startsWith('--') && (topAt === -1 || i !== topAt + 1));
// The pipeline's two workspace runs: the parallel one and the timing files run alone.
const files =
  given.length > 0 ? given : ['unit.json', 'unit-timing.json'].map((f) => join(root, '.tmp/test-timings', f));
const stagesFile = join(root, '.tmp/test-timings/stages.json');

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const name = (path) => relative(root, path);

if (existsSync(stagesFile)) {
  const { date, total, serial, results } = JSON.parse(readFileSync(stagesFile, 'utf8'));
  console.log(
    `## Stages (${date}, ${serial ? 'one at a time' : 'in lanes'})\n\n| stage | wall time | result |\n|---|---|---|`,
  );
  for (const r of results) console.log(`| ${r.name} | ${r.seconds} s | ${r.ok ? 'passed' : 'FAILED'} |`);
  console.log(`| total | ${total} s | |\n`);
}

const runs = files.filter(existsSync).map((file) => JSON.parse(readFileSync(file, 'utf8')));
const results = runs.flatMap((run) => run.testResults);
const count = (key) => runs.reduce((total, run) => total + run[key], 0);
const perFile = results.map((f) => ({
  path: name(f.name),
  ms: f.endTime - f.startTime,
  tests: f.assertionResults.length,
}));
const tests = results.flatMap((f) =>
  f.assertionResults.map((t) => ({ path: name(f.name), title: t.fullName ?? t.title, ms: t.duration ?? 0 })),
);
const sum = perFile.reduce((total, f) => total + f.ms, 0);
console.log(
  `## ${files.map(name).join(' + ')}: ${count('numTotalTests')} tests in ${perFile.length} files, ` +
    `${count('numPassedTests')} passed, ${count('numFailedTests')} failed; ${seconds(sum)} of file time in all\n`,
);
console.log(`### The ${top} slowest files\n\n| file | tests | wall time |\n|---|---|---|`);
for (const f of perFile.sort((a, b) => b.ms - a.ms).slice(0, top))
  console.log(`| ${f.path} | ${f.tests} | ${seconds(f.ms)} |`);
console.log(`\n### The ${top} slowest tests\n\n| file | test | time |\n|---|---|---|`);
for (const t of tests.sort((a, b) => b.ms - a.ms).slice(0, top))
  console.log(`| ${t.path} | ${t.title.replaceAll('|', '\\|')} | ${seconds(t.ms)} |`);
