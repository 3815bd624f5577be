import { posix } from 'node:path';
import { unreachedFiles } from './reachable-files.ts';
import type { Manifest } from './workspace.ts';

/**
 * Paths that have no place in a published tarball: test suites and their fixtures, benches,
 * scratch and report folders, build caches, environment files.
 */
const FORBIDDEN: readonly { readonly pattern: RegExp; readonly what: string }[] = [
  { pattern: /(^|\/)(test|tests|__tests__|__mocks__|fixtures|__fixtures__)\//, what: 'a test folder' },
  { pattern: /\.(test|spec)\.[cm]?[jt]sx?$/, what: 'a test file' },
  { pattern: /(^|\/)(bench|benches|benchmarks)\//, what: 'a bench' },
  { pattern: /\.bench\.[cm]?[jt]sx?$/, what: 'a bench' },
  { pattern: /(^|\/)(\.tmp|test-artifacts|coverage|node_modules)\//, what: 'scratch output' },
  { pattern: /\.tsbuildinfo$/, what: 'a build cache' },
  { pattern: /(^|\/)\.env(\.|$)/, what: 'an environment file' },
];

/** What a source map holds that the rules read. */
interface SourceMap {
  readonly sources?: readonly (string | null)[];
  readonly sourcesContent?: readonly (string | null)[];
  readonly sourceRoot?: string;
}

/**
 * Everything wrong with a tarball's file list: a missing LICENSE, README or `dist/`, an export
 * or bin that points at a file not in it, a file that does not belong in it or that no export
 * or bin reaches (reachable-files.ts), a source map whose
 * sources lie outside the package or are neither shipped nor embedded. `read` returns a listed
 * file's text (from the package folder, which is what `npm pack` packs).
 */
export function tarballFindings(
  manifest: Manifest,
  files: readonly string[],
  read: (path: string) => string,
): string[] {
  const listed = new Set(files);
  const findings: string[] = [];
  for (const required of ['LICENSE', 'README.md', 'package.json']) {
    if (!listed.has(required)) findings.push(`${required} is missing`);
  }
  if (!files.some((file) => file.startsWith('dist/'))) findings.push('dist/ is missing (run `pnpm build` first)');

  for (const target of exportTargets(manifest)) {
    if (!matchesAny(target, files)) findings.push(`exports target ${target} is not in the tarball`);
  }
  for (const [name, target] of Object.entries(manifest.bin ?? {})) {
    if (!listed.has(posix.normalize(target))) findings.push(`bin ${name} (${target}) is not in the tarball`);
  }

  const forbidden = new Set<string>();
  for (const file of files) {
    const rule = FORBIDDEN.find(({ pattern }) => pattern.test(file));
    if (rule) findings.push(`${file} is ${rule.what} and must not be published`);
    if (rule) forbidden.add(file);
  }
  // One finding per file: a test file is named as such, not also as unreached.
  for (const file of unreachedFiles(manifest, files, read)) {
    if (!forbidden.has(file)) findings.push(`${file} is reached by no export or bin and must not be published`);
  }

  for (const file of files.filter((path) => path.endsWith('.map'))) {
    findings.push(...sourceMapFindings(file, JSON.parse(read(file)) as SourceMap, listed));
  }
  for (const file of files.filter((path) => /\.[cm]?js$/.test(path))) {
    const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(read(file))?.[1];
    if (url === undefined || url.startsWith('data:')) continue;
    const map = posix.join(posix.dirname(file), url);
    if (!listed.has(map)) findings.push(`${file} names the source map ${map}, which is not in the tarball`);
  }
  return findings;
}

function sourceMapFindings(file: string, map: SourceMap, listed: ReadonlySet<string>): string[] {
  const findings: string[] = [];
  const base = posix.join(posix.dirname(file), map.sourceRoot ?? '');
  (map.sources ?? []).forEach((source, index) => {
    if (source === null) return;
    const resolved = posix.normalize(posix.join(base, source));
    if (resolved.startsWith('../') || posix.isAbsolute(source) || /^[a-z]+:/i.test(source)) {
      findings.push(`${file} points outside the package: ${source}`);
      return;
    }
    const embedded = typeof map.sourcesContent?.[index] === 'string';
    if (!embedded && !listed.has(resolved)) {
      findings.push(`${file} names ${source}, which is neither in the tarball nor embedded (sourcesContent)`);
    }
  });
  return findings;
}

/** Every file path an `exports` map can resolve to, across all conditions. */
export function exportTargets(manifest: Manifest): string[] {
  const targets = new Set<string>();
  const walk = (value: unknown): void => {
    if (typeof value === 'string') targets.add(posix.normalize(value));
    else if (value !== null && typeof value === 'object') for (const inner of Object.values(value)) walk(inner);
  };
  walk(manifest.exports ?? {});
  return [...targets];
}

function matchesAny(target: string, files: readonly string[]): boolean {
  if (!target.includes('*')) return files.includes(target);
  const [prefix = '', suffix = ''] = target.split('*');
  return files.some((file) => file.startsWith(prefix) && file.endsWith(suffix));
}

/** The registry metadata every public package must carry, as a user's `npm view` shows it. */
export function manifestFindings(
  manifest: Manifest,
  folder: string,
  root: Manifest,
  privateNames: ReadonlySet<string>,
): string[] {
  const findings: string[] = [];
  const repository = root.repository?.url;
  if (manifest.license !== 'MIT') findings.push(`license is ${manifest.license}, not MIT`);
  if (!manifest.keywords?.length) findings.push('keywords are missing');
  if (!manifest.description) findings.push('description is missing');
  if (repository === undefined) findings.push('the root package.json has no repository.url to compare with');
  if (manifest.repository?.url !== repository)
    findings.push(`repository.url is ${manifest.repository?.url}, not ${repository}`);
  if (manifest.repository?.directory !== `packages/${folder}`) {
    findings.push(`repository.directory is ${manifest.repository?.directory}, not packages/${folder}`);
  }
  if (!manifest.homepage?.startsWith('https://')) findings.push('homepage is missing');
  if (!manifest.bugs?.url?.startsWith('https://')) findings.push('bugs.url is missing');
  // npm packs a CHANGELOG.md only when `files` names it; Changesets writes one per release.
  if (!manifest.files?.includes('CHANGELOG.md')) findings.push('files does not name CHANGELOG.md');
  if (manifest.publishConfig?.access !== 'public') findings.push('publishConfig.access is not "public"');
  if (manifest.publishConfig?.provenance !== true) findings.push('publishConfig.provenance is not true');
  if (manifest.engines?.node !== root.engines?.node) {
    findings.push(`engines.node is ${manifest.engines?.node}, not the root's ${root.engines?.node}`);
  }
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies'] as const) {
    for (const name of Object.keys(manifest[field] ?? {})) {
      if (privateNames.has(name)) findings.push(`${field} names ${name}, which is never published`);
    }
  }
  return findings;
}
