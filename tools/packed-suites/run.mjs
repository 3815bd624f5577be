#!/usr/bin/env node
// Runs the packages' integration suites against what npm would publish, the way a customer
// installs it: `pnpm pack` each package, `npm install` the tarballs into a fresh project with
// each supported Node (so better-sqlite3 is installed by and for that Node), copy the suites in,
// point their imports of `../src/<entry>` at the installed `@kyc/<package>/<entry>`, and run
// Vitest there under that Node. Suites that reach into a package's internals cannot run against
// an install; they are listed, with the reason, in the output.
//
//   node tools/packed-suites/run.mjs                 # Node 22, this Node (24), Node 26, Bun, Deno
//   node tools/packed-suites/run.mjs --only deno     # one of node22, node24, node26, bun, deno
//   node tools/packed-suites/run.mjs --node /path/to/node [--node ...]
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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
  const args = process.argv.slice(2);
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
  rmSync(into, { recursive: true, force: true });
  mkdirSync(into, { recursive: true });
  for (const name of published) {
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

// `../src/<file>.js` → the package subpath whose `@kyc/source` condition names that file.
function publicEntries(name) {
  const { exports } = readJson(join(root, 'packages', name, 'package.json'));
  const entries = new Map();
  for (const [subpath, target] of Object.entries(exports)) {
    const source = typeof target === 'object' ? target['@kyc/source'] : undefined;
    if (source) entries.set(resolve(root, 'packages', name, source), `@kyc/${name}${subpath.slice(1)}`);
  }
  return entries;
}

const importPattern = /^(import|export)(\s+type)?([^'"]*?from\s*)(['"])(\.[^'"]+)\4/gm;
// `await import('../src/audit.js')` is the same dependency in another form; a missed one fails
// only against the install (`Cannot find module '/src/audit.js'`), so it is rewritten alike.
const dynamicImportPattern = /\b(import\(\s*)(['"])(\.[^'"]+)\2/g;

/** Copies one package's `test/` folder, rewriting imports of its public entries; returns what it had to leave out. */
function copySuite(name, into) {
  const from = join(root, 'packages', name, 'test');
  const src = join(root, 'packages', name, 'src');
  const entries = publicEntries(name);
  const internal = new Map(); // file (relative to test/) → why it cannot run against an install
  const imports = new Map(); // file → relative test files it imports
  // Every file: a suite's fixtures (a JSON Lines log, say) go with it; only code is rewritten.
  const files = readdirSync(from, { recursive: true }).filter((file) => statSync(join(from, file)).isFile());
  for (const file of files) {
    const path = join(from, file);
    mkdirSync(dirname(join(into, file)), { recursive: true });
    if (!file.endsWith('.ts')) {
      cpSync(path, join(into, file));
      continue;
    }
    let text = readFileSync(path, 'utf8');
    const local = [];
    // The installed entry for a relative specifier, or undefined to leave it (and why, if it must stay).
    const rewrite = (specifier, typeOnly) => {
      const target = resolve(dirname(path), specifier.replace(/\.js$/, '.ts'));
      if (!target.startsWith(src)) {
        if (target.startsWith(from)) local.push(relative(from, target));
        return undefined;
      }
      const entry = entries.get(target);
      if (!entry && !typeOnly)
        internal.set(file, `imports ${relative(join(root, 'packages'), target)}, not a public entry`);
      return entry;
    };
    text = text.replace(importPattern, (whole, keyword, typeOnly, middle, quote, specifier) => {
      const entry = rewrite(specifier, typeOnly);
      return entry ? `${keyword}${typeOnly ?? ''}${middle}${quote}${entry}${quote}` : whole;
    });
    text = text.replace(dynamicImportPattern, (whole, call, quote, specifier) => {
      const entry = rewrite(specifier, undefined);
      return entry ? `${call}${quote}${entry}${quote}` : whole;
    });
    // Worker processes run from the copied TypeScript with tsx, resolving the installed packages.
    text = text.replaceAll("'--conditions=@kyc/source', ", '');
    imports.set(file, local);
    writeFileSync(join(into, file), text);
  }
  const reason = (file, seen = new Set()) => {
    if (internal.has(file)) return internal.get(file);
    seen.add(file);
    for (const dep of imports.get(file) ?? []) {
      const why = !seen.has(dep) && reason(dep, seen);
      if (why) return `through ${dep}: ${why}`;
    }
    return undefined;
  };
  const excluded = {};
  for (const file of files.filter((f) => f.endsWith('.test.ts'))) {
    const why = notForInstalls[`${name}/test/${file}`] ?? reason(file);
    if (why) excluded[file] = why;
  }
  return excluded;
}

function prepare(runtime, tarballs) {
  const project = join(work, runtime.name);
  rmSync(project, { recursive: true, force: true });
  mkdirSync(project, { recursive: true });
  // `overrides` keeps the packages' own dependencies on each other on the tarballs too.
  const manifest = {
    name: 'kyc-packed-suites',
    private: true,
    type: 'module',
    dependencies: tarballs,
    overrides: tarballs,
  };
  manifest.devDependencies = testDependencies();
  writeFileSync(join(project, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  log(
    `${runtime.version}: ${runtime.install
      .slice(0, 2)
      .map((part) => part.split('/').pop())
      .join(' ')} of the packed packages into ${relative(root, project)}`,
  );
  const env = { ...process.env, PATH: `${dirname(runtime.exec)}:${process.env.PATH}` };
  const [command, ...args] = runtime.install;
  const install = spawnSync(command, args, { cwd: project, env, stdio: 'inherit' });
  if (install.status !== 0) throw new Error(`installing the packed packages with ${runtime.version} failed`);
  const excluded = {};
  for (const name of runtime.suites) excluded[name] = copySuite(name, join(project, 'suites', name, 'test'));
  cpSync(join(root, 'packages/test-support/src'), join(project, 'suites/test-support/src'), { recursive: true });
  const projects = runtime.suites.map((name) => ({
    test: {
      name,
      root: `suites/${name}`,
      include: ['test/**/*.test.ts'],
      exclude: Object.keys(excluded[name]).map((f) => `test/${f}`),
    },
  }));
  writeFileSync(
    join(project, 'vitest.config.mjs'),
    `// Written by tools/packed-suites/run.mjs.
import { fileURLToPath } from 'node:url';
export default {
  resolve: { alias: { '@kyc/test-support': fileURLToPath(new URL('./suites/test-support/src/index.ts', import.meta.url)) } },
  test: { projects: ${JSON.stringify(projects)}, testTimeout: 20000, hookTimeout: 60000 },
};
`,
  );
  return { project, env, excluded };
}

function main() {
  const tarballs = pack();
  const results = [];
  for (const runtime of runtimes()) {
    const { project, env, excluded } = prepare(runtime, tarballs);
    for (const [name, files] of Object.entries(excluded)) {
      for (const [file, why] of Object.entries(files))
        log(`${runtime.version}: not run against the install: ${name}/test/${file} (${why})`);
    }
    log(`${runtime.version}: vitest (${runtime.suites.join(', ')}) in ${relative(root, project)}`);
    const [command, ...args] = runtime.test;
    const run = spawnSync(command, args, { cwd: project, env, stdio: 'inherit' });
    results.push({ version: runtime.version, ok: run.status === 0 });
  }
  for (const { version, ok } of results) log(`${version}: ${ok ? 'passed' : 'FAILED'}`);
  process.exit(results.every((r) => r.ok) ? 0 : 1);
}

main();
