import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is tools/release-checks/src/workspace.ts). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

type ExportTarget = string | { readonly [condition: string]: ExportTarget } | null;

/** The parts of a package.json the release checks read. */
export interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly description?: string;
  readonly private?: boolean;
  readonly license?: string;
  readonly keywords?: readonly string[];
  readonly homepage?: string;
  readonly bugs?: { readonly url?: string };
  readonly repository?: { readonly type?: string; readonly url?: string; readonly directory?: string };
  readonly publishConfig?: { readonly access?: string; readonly provenance?: boolean };
  readonly files?: readonly string[];
  readonly scripts?: Readonly<Record<string, string>>;
  readonly main?: string;
  readonly module?: string;
  readonly types?: string;
  readonly exports?: Readonly<Record<string, ExportTarget>>;
  readonly bin?: Readonly<Record<string, string>>;
  readonly engines?: Readonly<Record<string, string>>;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly peerDependenciesMeta?: Readonly<Record<string, { readonly optional?: boolean }>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
}

/** The names of the workspace's private packages (packages/*, examples/*, tools/*): never published. */
export function privatePackageNames(): Set<string> {
  const names = new Set<string>();
  for (const folder of ['packages', 'examples', 'tools']) {
    for (const entry of readdirSync(join(ROOT, folder), { withFileTypes: true })) {
      const dir = join(ROOT, folder, entry.name);
      if (!entry.isDirectory() || !existsSync(join(dir, 'package.json'))) continue;
      const manifest = readManifest(dir);
      if (manifest.private === true) names.add(manifest.name);
    }
  }
  return names;
}

/** A package of `packages/` that is published (not `private`). */
export interface PublicPackage {
  readonly name: string;
  /** Its folder name under `packages/`: `client`, `webhook-receiver`, … */
  readonly folder: string;
  /** Absolute path of its folder. */
  readonly dir: string;
  readonly manifest: Manifest;
}

export function readManifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
}

/** Every package under `packages/` without `"private": true`, in folder order. */
export function publicPackages(): PublicPackage[] {
  return readdirSync(join(ROOT, 'packages'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => ({ folder: entry.name, dir: join(ROOT, 'packages', entry.name) }))
    .map(({ folder, dir }) => ({ folder, dir, manifest: readManifest(dir) }))
    .filter(({ manifest }) => manifest.private !== true)
    .map(({ folder, dir, manifest }) => ({ name: manifest.name, folder, dir, manifest }));
}

/** One subpath of a package's `exports` that carries types: what a user can import and see typed. */
export interface TypedEntryPoint {
  /** `.` or `./postgres`, as in the exports map. */
  readonly subpath: string;
  /** Absolute path of the ESM declaration file (`import.types`). */
  readonly declarationFile: string;
  /** The report's base name: `client`, `webhook-receiver.postgres`. */
  readonly reportName: string;
}

export function typedEntryPoints(pkg: PublicPackage): TypedEntryPoint[] {
  const entries: TypedEntryPoint[] = [];
  for (const [subpath, target] of Object.entries(pkg.manifest.exports ?? {})) {
    const types = importTypes(target);
    if (types === undefined) continue;
    const suffix = subpath === '.' ? '' : `.${subpath.replace(/^\.\//, '').replaceAll('/', '-')}`;
    entries.push({ subpath, declarationFile: join(pkg.dir, types), reportName: `${pkg.folder}${suffix}` });
  }
  return entries;
}

function importTypes(target: ExportTarget | undefined): string | undefined {
  if (target === null || target === undefined || typeof target === 'string') return undefined;
  const branch = target.import;
  if (branch !== null && typeof branch === 'object' && typeof branch.types === 'string') return branch.types;
  return undefined;
}
