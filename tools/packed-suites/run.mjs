#!/usr/bin/env node
// Runs the packages' integration suites against what npm would publish, the way a customer
// installs it: `pnpm pack` each package, `npm install` the tarballs into a fresh project (once:
// the install serves every Node and Deno; Bun gets its own `bun install`), copy the suites into a
// project per runtime, point their imports of `../src/<entry>` at the installed
// `@kyc/<package>/<entry>`, and run Vitest there under that runtime. Suites that reach into a
// package's internals cannot run against an install; they are listed, with the reason, in the output.
//
//   node tools/packed-suites/run.mjs                 # Node 22, this Node (24), Node 26, Bun, Deno
//   node tools/packed-suites/run.mjs --only deno     # one of node22, node24, node26, bun, deno
//   node tools/packed-suites/run.mjs --node /path/to/node [--node ...]
//   node tools/packed-suites/run.mjs --jobs 4        # runtimes at once, each one's output whole when it ends
//   node tools/packed-suites/run.mjs --timing skip   # or only: see tools/test-pipeline/timing-tests.json
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { copySuite } from './copy-suite.mjs';
import { pool, spawnAsync } from './processes.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const work = join(root, '.tmp', 'packed');
const published = ['contracts', 'client', 'webhook-receiver', 'delivery-engine', 'sandbox'];
const suites = ['client', 'webhook-receiver', 'delivery-engine'];
const edgeSuites = ['client', 'webhook-receiver'];
// Suites that measure or inspect the workspace's own build rather than exercise an install.
const notForInstalls = {
  'client/test/bundle-size.test.ts': 'measures the bundle built from the workspace sources',
  'client/test/workerd.test.ts': 'runs workerd on a Worker bundled from the workspace sources',
  'webhook-receiver/test/bundle-size.test.ts': 'measures the bundle built from the workspace sources',
  'webhook-receiver/test/edge-runtimes.test.ts': 'bundles the receiver from its sources for each runtime',
  'webhook-receiver/test/edge-bundle.test.ts': 'bundles the workspace build of the edge entries',
  'webhook-receiver/test/durable-object-store.test.ts': 'runs workerd on a Worker bundled from the workspace sources',
  'webhook-receiver/test/workerd-module-scope.test.ts': 'runs workerd on a Worker bundled from the workspace sources',
  'client/test/bundler-warnings.test.ts': 'bundles the workspace build with esbuild and Vite',
  'webhook-receiver/test/bundler-warnings.test.ts': 'bundles the workspace build with esbuild and Vite',
  'client/test/lazy-start.test.ts': "watches imports with Node's module.registerHooks (not in Bun or Deno)",
  'webhook-receiver/test/lazy-start.test.ts': "watches imports with Node's module.registerHooks (not in Bun or Deno)",
};
// Tooling the suites import that no published package depends on, and what only the benches use.
const skipDevDependencies = /^(node2\d|bun|deno|madge|@types\/|autocannon$|miniflare$|esbuild$|@onfido\/api$)/;

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
const args = process.argv.slice(2);
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
// The workspace's timing files (tools/test-pipeline/timing-tests.json): `--timing skip` runs the
// suites without them, `--timing only` just them (`pnpm test` runs those last, with nothing beside).
const timing = option('--timing');
if (timing !== undefined && timing !== 'skip' && timing !== 'only') throw new Error(`--timing ${timing}: skip or only`);
const timingFiles = readJson(join(root, 'tools/test-pipeline/timing-tests.json')).files;
// `--reuse-install`: the tarballs and installs an earlier run of this checkout left, as they are.
const reuse = args.includes('--reuse-install');
const log = (line) => console.log(`[packed] ${line}`);

const fromPackage = (pkg, spec) => createRequire(join(root, 'packages', pkg, 'package.json')).resolve(spec);
function binary(pkg, name, platformPackage, file) {
  try {
    return join(
      dirname(createRequire(fromPackage(pkg, `${name}/package.json`)).resolve(`${platformPackage}/package.json`)),
      file,
    );
  } catch {
    throw new Error(`${name} (${platformPackage}) is not installed: run pnpm install on linux-x64`);
  }
}

const vitest = 'node_modules/vitest/vitest.mjs';
const npmInstall = ['npm', 'install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'];
const nodeRuntime = (exec) => {
  const version = execFileSync(exec, ['--version'], { encoding: 'utf8' }).trim();
  return {
    name: `node${version.slice(1).split('.')[0]}`,
    version: `Node ${version}`,
    exec,
    install: npmInstall,
    test: [exec, vitest, 'run'],
    suites,
  };
};
// Bun and Deno run the packages made for every runtime (the receiver and the client); the
// delivery engine and the sandbox promise Node only (`engines`).
function bunRuntime() {
  const exec = binary('webhook-receiver', 'bun', '@oven/bun-linux-x64', 'bin/bun');
  const version = execFileSync(exec, ['--version'], { encoding: 'utf8' }).trim();
  // Bun's child processes lack the IPC channel Vitest's forks pool unrefs; threads work.
  const test = [exec, '--bun', vitest, 'run', '--pool=threads'];
  return { name: 'bun', version: `Bun ${version}`, exec, install: [exec, 'install'], test, suites: edgeSuites };
}
function denoRuntime() {
  const exec = binary('webhook-receiver', 'deno', '@deno/linux-x64-glibc', 'deno');
  const version = execFileSync(exec, ['--version'], { encoding: 'utf8' }).split('\n')[0];
  // `deno install` links `file:` dependencies instead of unpacking tarballs, so npm installs
  // the project, as in a Deno project that keeps a package.json, and Deno uses that node_modules.
  const test = [exec, 'run', '--allow-all', '--node-modules-dir=manual', vitest, 'run'];
  return {
    name: 'deno',
    version: `Deno ${version.split(' ')[1]}`,
    exec,
    install: npmInstall,
    test,
    suites: edgeSuites,
  };
}

function runtimes() {
  const chosen = args.flatMap((arg, i) => (arg === '--node' ? [args[i + 1]] : []));
  if (chosen.length > 0) return chosen.map(nodeRuntime);
  const only = args.flatMap((arg, i) => (arg === '--only' ? [args[i + 1]] : []));
  const node = (alias) => () => nodeRuntime(binary('test-support', alias, alias, 'bin/node'));
  const all = {
    node22: node('node22'),
    node24: () => nodeRuntime(process.execPath),
    node26: node('node26'),
    bun: bunRuntime,
    deno: denoRuntime,
  };
  return Object.entries(all)
    .filter(([name]) => only.length === 0 || only.includes(name))
    .map(([, make]) => make());
}

function pack() {
  const into = join(work, 'tarballs');
  if (!reuse) rmSync(into, { recursive: true, force: true });
  mkdirSync(into, { recursive: true });
  for (const name of reuse ? [] : published) {
    const dir = join(root, 'packages', name);
    if (!existsSync(join(dir, 'dist'))) throw new Error(`packages/${name}/dist is missing: run pnpm build first`);
    execFileSync('pnpm', ['pack', '--pack-destination', into], { cwd: dir, stdio: 'ignore' });
  }
  const tarballs = {};
  for (const file of readdirSync(into)) {
    const name = published.find((pkg) => file.startsWith(`kyc-${pkg}-`) && /^\d/.test(file.slice(pkg.length + 5)));
    if (name) tarballs[`@kyc/${name}`] = `file:${join(into, file)}`;
  }
  if (Object.keys(tarballs).length !== published.length) throw new Error(`pnpm pack made ${readdirSync(into)}`);
  return tarballs;
}

function testDependencies() {
  const wanted = {};
  for (const name of [...suites, 'test-support']) {
    const { devDependencies = {} } = readJson(join(root, 'packages', name, 'package.json'));
    for (const [dep, range] of Object.entries(devDependencies)) {
      if (!range.startsWith('workspace:') && !skipDevDependencies.test(dep)) wanted[dep] = range;
    }
  }
  const rootDev = readJson(join(root, 'package.json')).devDependencies;
  return { ...wanted, vitest: rootDev.vitest, tsx: rootDev.tsx, 'fast-check': rootDev['fast-check'] };
}

const manifestFor = (tarballs) => ({
  name: 'kyc-packed-suites',
  private: true,
  type: 'module',
  dependencies: tarballs,
  // `overrides` keeps the packages' own dependencies on each other on the tarballs too.
  overrides: tarballs,
  devDependencies: testDependencies(),
});
const envFor = (runtime) => ({ ...process.env, PATH: `${dirname(runtime.exec)}:${process.env.PATH}` });

/**
 * One install per package manager, not per runtime: npm's install serves Node 22, 24, 26 and Deno
 * alike (better-sqlite3 is a Node-API addon with its prebuilt binaries in the package, so nothing
 * in the tree depends on the Node that installed it); Bun installs with `bun install`.
 */
async function install(runtime, tarballs, inherit) {
  const kind = runtime.install[0].split('/').pop();
  const into = join(work, `install-${kind}`);
  if (reuse && existsSync(join(into, 'node_modules'))) return into;
  rmSync(into, { recursive: true, force: true });
  mkdirSync(into, { recursive: true });
  writeFileSync(join(into, 'package.json'), `${JSON.stringify(manifestFor(tarballs), null, 2)}\n`);
  log(
    `${runtime.install
      .slice(0, 2)
      .map((part) => part.split('/').pop())
      .join(' ')} of the packed packages into ${relative(root, into)}`,
  );
  const [command, ...args] = runtime.install;
  const { status, output } = await spawnAsync(command, args, { cwd: into, env: envFor(runtime) }, inherit);
  process.stdout.write(output);
  if (status !== 0) throw new Error(`installing the packed packages with ${runtime.version} failed`);
  return into;
}

/** The runtime's project: its own copy of the suites and config, the shared install's node_modules. */
function prepare(runtime, tarballs, installed) {
  const project = join(work, runtime.name);
  rmSync(project, { recursive: true, force: true });
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'package.json'), `${JSON.stringify(manifestFor(tarballs), null, 2)}\n`);
  symlinkSync(join(installed, 'node_modules'), join(project, 'node_modules'), 'dir');
  const excluded = {};
  for (const name of runtime.suites)
    excluded[name] = copySuite(root, name, join(project, 'suites', name, 'test'), notForInstalls);
  cpSync(join(root, 'packages/test-support/src'), join(project, 'suites/test-support/src'), { recursive: true });
  const projects = runtime.suites.flatMap((name) => {
    const left = Object.keys(excluded[name]).map((f) => `test/${f}`);
    const timed = timingFiles
      .filter((f) => f.startsWith(`packages/${name}/test/`))
      .map((f) => f.slice(`packages/${name}/`.length))
      .filter((f) => !left.includes(f));
    if (timing === 'only' && timed.length === 0) return [];
    const include = timing === 'only' ? timed : ['test/**/*.test.ts'];
    const exclude = timing === 'skip' ? [...left, ...timed] : left;
    return [{ test: { name, root: `suites/${name}`, include, exclude } }];
  });
  // `cacheDir`: the runtimes share one node_modules, so Vite's cache goes beside each project instead.
  writeFileSync(
    join(project, 'vitest.config.mjs'),
    `// Written by tools/packed-suites/run.mjs.
import { fileURLToPath } from 'node:url';
export default {
  cacheDir: '.vite',
  resolve: { alias: { '@kyc/test-support': fileURLToPath(new URL('./suites/test-support/src/index.ts', import.meta.url)) } },
  test: { projects: ${JSON.stringify(projects)}, testTimeout: 20000, hookTimeout: 60000 },
};
`,
  );
  return { project, excluded, projects };
}

async function main() {
  const jobs = Number(option('--jobs') ?? 1);
  if (!Number.isInteger(jobs) || jobs < 1) throw new Error(`--jobs ${option('--jobs')}: a whole number of at least 1`);
  const inherit = jobs === 1;
  const tarballs = pack();
  const chosen = runtimes();
  const kinds = new Map(chosen.map((runtime) => [runtime.install[0], runtime]));
  const installs = new Map();
  await Promise.all(
    [...kinds].map(async ([kind, runtime]) => installs.set(kind, await install(runtime, tarballs, inherit))),
  );
  const results = [];
  await pool(chosen, jobs, async (runtime) => {
    const started = Date.now();
    const { project, excluded, projects } = prepare(runtime, tarballs, installs.get(runtime.install[0]));
    if (projects.length === 0) return log(`${runtime.version}: none of its suites has a timing file`);
    const lines = [];
    for (const [name, files] of Object.entries(excluded)) {
      for (const [file, why] of Object.entries(files))
        lines.push(`[packed] ${runtime.version}: not run against the install: ${name}/test/${file} (${why})`);
    }
    const names = projects.map((p) => p.test.name).join(', ');
    const part =
      timing === undefined ? '' : timing === 'only' ? ', the timing files only' : ', without the timing files';
    lines.push(`[packed] ${runtime.version}: vitest (${names}${part}) in ${relative(root, project)}`);
    if (inherit) console.log(lines.join('\n'));
    const [command, ...rest] = runtime.test;
    const run = await spawnAsync(command, rest, { cwd: project, env: envFor(runtime) }, inherit);
    const seconds = Math.round((Date.now() - started) / 1000);
    // Each runtime's output whole, when it ends, so Vitest's summary lines stay as Vitest wrote them.
    if (!inherit) process.stdout.write(`${lines.join('\n')}\n${run.output}`);
    log(`${runtime.version}: ${run.status === 0 ? 'passed' : 'FAILED'} in ${seconds} s`);
    results.push({ version: runtime.version, ok: run.status === 0, seconds });
  });
  for (const { version, ok, seconds } of results) log(`${version}: ${ok ? 'passed' : 'FAILED'} (${seconds} s)`);
  process.exit(results.length > 0 && results.every((r) => r.ok) ? 0 : 1);
}

await main();
