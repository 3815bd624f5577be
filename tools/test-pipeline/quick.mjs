#!/usr/bin/env node
// `pnpm test:quick <name> [vitest args]`: what a change to one package or example needs before a
// commit: its type check and its Vitest project, at the same time (the type check is CPU, the
// tests mostly wait). The full `pnpm test` still runs everything else (the other packages'
// suites, lint, the packed installs, the release checks, the chaos suite).
//
//   pnpm test:quick webhook-receiver
//   pnpm test:quick delivery-engine test/isolation.test.ts
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const [name, ...rest] = process.argv.slice(2);
const folder = ['packages', 'examples']
  .map((f) => join(f, name ?? ''))
  .find((f) => name && existsSync(join(root, f, 'package.json')));
if (!folder) {
  console.error('usage: pnpm test:quick <package or example folder name> [vitest arguments]');
  process.exit(2);
}

const started = Date.now();
const run = (label, command, args) =>
  new Promise((done) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    child.on('close', (status) => {
      process.stdout.write(`\n──── ${label} ────\n${Buffer.concat(chunks)}`);
      process.stdout.write(
        `[quick] ${label}: ${status === 0 ? 'passed' : 'FAILED'} in ${Math.round((Date.now() - started) / 1000)} s\n`,
      );
      done(status === 0);
    });
  });

const results = await Promise.all([
  run(`typecheck ${folder}`, 'pnpm', ['--filter', `./${folder}`, 'run', 'typecheck']),
  run(`vitest --project ${name}`, 'pnpm', ['exec', 'vitest', 'run', '--project', name, ...rest]),
]);
process.exit(results.every(Boolean) ? 0 : 1);
