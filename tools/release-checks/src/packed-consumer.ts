import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PublicPackage } from './workspace.ts';

/**
 * The TypeScript versions we support for consumers, each installed under its own alias in the
 * one consumer project (docs/versioning.md names them; the packed-consumer test proves them).
 */
export const TYPESCRIPT_VERSIONS = [
  { label: 'TypeScript 7.0', alias: 'typescript', spec: '7.0.2' },
  { label: 'TypeScript 5.9', alias: 'typescript-5.9', spec: 'npm:typescript@5.9.3' },
] as const;

/** The types of the runtime's globals (`Request`, `AbortSignal`, `node:http`): what a Node project has. */
export const NODE_TYPES = { '@types/node': '^22.20.5' };

/**
 * The optional peers a consumer of every entry point installs (the adapters' frameworks and
 * OpenTelemetry), and @types/node for the Node entry points. Nothing else: no @types the
 * packages' own dependencies would need.
 */
const CONSUMER_DEPENDENCIES = {
  ...NODE_TYPES,
  '@opentelemetry/api': '^1.9.0',
  fastify: '^5.0.0',
  pg: '^8.11.0',
  // The receiver's inbox adapters (issue 29), one entry each.
  'drizzle-orm': '^0.45.0',
  knex: '^3.1.0',
  kysely: '^0.29.0',
  mysql2: '^3.11.0',
};

/** `pnpm pack` of every public package into `into`: package name → `file:` tarball. */
export function packTarballs(packages: readonly PublicPackage[], into: string): Record<string, string> {
  rmSync(into, { recursive: true, force: true });
  mkdirSync(into, { recursive: true });
  const tarballs: Record<string, string> = {};
  for (const pkg of packages) {
    const output = execFileSync('pnpm', ['pack', '--pack-destination', into, '--json'], {
      cwd: pkg.dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    tarballs[pkg.name] = `file:${(JSON.parse(output) as { filename: string }).filename}`;
  }
  if (readdirSync(into).length !== packages.length) throw new Error(`pnpm pack made ${readdirSync(into)}`);
  return tarballs;
}

/** Which of the tarballs a consumer depends on, and what else it installs. */
export interface ConsumerOptions {
  /** Package names; all of them when left out. */
  readonly packages?: readonly string[];
  readonly dependencies?: Readonly<Record<string, string>>;
}

/**
 * A fresh project that installs the tarballs with npm, as a user would. `overrides` keeps the
 * packages' dependencies on each other on the tarballs too (not on the registry). Install
 * scripts are skipped: the type checks and the export listing load no native addon.
 */
export function installConsumer(
  dir: string,
  tarballs: Record<string, string>,
  options: ConsumerOptions = {},
): Promise<void> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const typescript = Object.fromEntries(TYPESCRIPT_VERSIONS.map(({ alias, spec }) => [alias, spec]));
  const manifest = {
    name: 'kyc-packed-consumer',
    private: true,
    type: 'module',
    dependencies: {
      ...Object.fromEntries(Object.entries(tarballs).filter(([name]) => options.packages?.includes(name) ?? true)),
      ...(options.dependencies ?? CONSUMER_DEPENDENCIES),
      ...typescript,
    },
    overrides: tarballs,
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const args = ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', '--loglevel=error'];
  // Asynchronous, so a test can install several projects at once: an install mostly waits.
  return new Promise((resolve, reject) => {
    const install = spawn('npm', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    install.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    install.on('error', reject);
    install.on('close', (status) =>
      status === 0 ? resolve() : reject(new Error(`npm install of the tarballs failed:\n${stderr}`)),
    );
  });
}

/** What `import()` and `require()` of each specifier hand over at run time, in the consumer. */
export interface RuntimeExports {
  readonly esm: readonly string[];
  readonly cjs: readonly string[];
}

/** Lists each entry's named exports by loading it in the consumer, as ESM and as CommonJS. */
export function runtimeExports(dir: string, specifiers: readonly string[]): Record<string, RuntimeExports> {
  const script = `
    import { createRequire } from 'node:module';
    const require = createRequire(import.meta.url);
    const named = (keys) => keys.filter((key) => !['default', '__esModule', 'module.exports'].includes(key)).sort();
    const out = {};
    for (const spec of JSON.parse(process.argv[2])) {
      out[spec] = { esm: named(Object.keys(await import(spec))), cjs: named(Object.keys(require(spec))) };
    }
    process.stdout.write(JSON.stringify(out));`;
  const file = join(dir, 'list-exports.mjs');
  writeFileSync(file, script);
  const output = execFileSync(process.execPath, [file, JSON.stringify(specifiers)], { cwd: dir, encoding: 'utf8' });
  return JSON.parse(output) as Record<string, RuntimeExports>;
}

/** One entry point as the consumer imports it: its specifier, value names and type-only names. */
export interface ConsumedEntry {
  readonly specifier: string;
  readonly values: readonly string[];
  readonly types: readonly string[];
}

/**
 * A file that imports every named export of every entry: `import { … }` in an `.mts` file
 * resolves the `import` condition (`.d.ts`), in a `.cts` file under nodenext the `require`
 * condition (`.d.cts`). Each name gets the entry's prefix, since entries share names.
 */
export function importEverything(entries: readonly ConsumedEntry[]): string {
  const lines = entries.map(({ specifier, values, types }, index) => {
    const named = [...values.map((name) => `${name} as e${index}_${name}`)];
    named.push(...types.map((name) => `type ${name} as e${index}_${name}`));
    return `import { ${named.join(', ')} } from '${specifier}';`;
  });
  // Referencing each value keeps the import from being a type-only formality.
  const uses = entries.flatMap(({ values }, index) => values.map((name) => `e${index}_${name}`));
  return `${lines.join('\n')}\nexport const everything: readonly unknown[] = [${uses.join(', ')}];\n`;
}

export interface TscResult {
  readonly status: number | null;
  readonly output: string;
}

/** Runs one installed TypeScript's `tsc -p <project>` in the consumer. */
export function runTsc(dir: string, alias: string, project: string): TscResult {
  const tsc = join(dir, 'node_modules', alias, 'bin', 'tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', project, '--pretty', 'false'], { cwd: dir, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}`.trim() };
}
