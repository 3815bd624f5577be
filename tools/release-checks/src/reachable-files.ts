import { posix } from 'node:path';
import type { Manifest } from './workspace.ts';

/** Files a tarball carries for people and tools, not for an import: always wanted. */
const DOCUMENTS = new Set(['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md']);

// A module specifier in code: static imports and re-exports (also `import type`), dynamic
// `import()`, `require()`, side-effect imports, and the `new URL('./x', import.meta.url)`
// idiom for a file read at run time, and a triple-slash `<reference path>`. Only relative ones matter: they name files of the package.
const SPECIFIERS = [
  /\bfrom\s*["']([^"']+)["']/g,
  /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
  /\brequire\s*\(\s*["']([^"']+)["']\s*\)/g,
  /^\s*import\s*["']([^"']+)["']/gm,
  /^\/\/\/\s*<reference\s+path=["']([^"']+)["']/gm,
  /\bnew URL\(\s*["']([^"']+)["']\s*,\s*import\.meta\.url\s*\)/g,
];
const SOURCE_MAP_URL = /\/\/# sourceMappingURL=(\S+)\s*$/;
const CODE = /\.(?:[cm]?[jt]s|d\.[cm]?ts)$/;

/**
 * The file a relative specifier names, among the tarball's files. A declaration file names its
 * sibling declarations by their JavaScript names (`./chunks/x.js` → `./chunks/x.d.ts`, `.cjs` →
 * `.d.cts`); a TypeScript source names `./x.ts`, `./x.js` for `./x.ts`, or no extension;
 * JavaScript names the file as it is.
 */
function resolve(from: string, specifier: string, listed: ReadonlySet<string>): string | undefined {
  const base = posix.normalize(posix.join(posix.dirname(from), specifier));
  const declaration = [
    base.replace(/\.js$/, '.d.ts'),
    base.replace(/\.cjs$/, '.d.cts'),
    base.replace(/\.mjs$/, '.d.mts'),
    `${base}.d.ts`,
  ].filter((candidate) => candidate !== base);
  const source = [
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.mjs$/, '.mts'),
    base.replace(/\.cjs$/, '.cts'),
    `${base}.ts`,
    `${base}/index.ts`,
  ];
  const candidates = /\.d\.[cm]?ts$/.test(from)
    ? [...declaration, base]
    : from.endsWith('.ts') || from.endsWith('.mts') || from.endsWith('.cts')
      ? [base, ...source, ...declaration]
      : [base, `${base}.js`, `${base}/index.js`];
  return candidates.find((candidate) => listed.has(candidate));
}

/** What one file leads to: its relative imports, its source map, a map's sources. */
function edges(file: string, text: string, listed: ReadonlySet<string>): string[] {
  const found: (string | undefined)[] = [];
  if (file.endsWith('.map')) {
    const map = JSON.parse(text) as { sources?: (string | null)[]; sourceRoot?: string };
    const root = posix.join(posix.dirname(file), map.sourceRoot ?? '');
    for (const source of map.sources ?? []) {
      if (source !== null) found.push(posix.normalize(posix.join(root, source)));
    }
  } else if (CODE.test(file)) {
    for (const pattern of SPECIFIERS) {
      for (const match of text.matchAll(pattern)) {
        const specifier = match[1] ?? '';
        if (specifier.startsWith('./') || specifier.startsWith('../')) found.push(resolve(file, specifier, listed));
      }
    }
    const url = SOURCE_MAP_URL.exec(text)?.[1];
    if (url !== undefined && !url.startsWith('data:')) found.push(posix.join(posix.dirname(file), url));
  }
  return found.filter((path): path is string => path !== undefined && listed.has(path));
}

/** Every path the `exports` map (all conditions, `*` patterns matched) and `bin` name. */
function roots(manifest: Manifest, files: readonly string[]): string[] {
  const targets: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') targets.push(posix.normalize(value));
    else if (value !== null && typeof value === 'object') for (const inner of Object.values(value)) walk(inner);
  };
  walk(manifest.exports ?? {});
  for (const target of [manifest.main, manifest.module, manifest.types]) if (target) targets.push(target);
  for (const target of Object.values(manifest.bin ?? {})) targets.push(posix.normalize(target));
  return files.filter(
    (file) =>
      DOCUMENTS.has(file) ||
      targets.some((target) => {
        const [prefix = '', suffix] = posix.normalize(target).split('*');
        return suffix === undefined ? file === prefix : file.startsWith(prefix) && file.endsWith(suffix);
      }),
  );
}

/**
 * The tarball's files that nothing reaches: not an export target, bin or document, and not
 * imported (or named as a source map or a map's source) by a file that is, transitively. Such
 * a file only costs install size, and if it imports a devDependency it misleads every tool that
 * scans the package (the sandbox's demo did). `read` returns a listed file's text.
 */
export function unreachedFiles(manifest: Manifest, files: readonly string[], read: (path: string) => string): string[] {
  const listed = new Set(files);
  const reached = new Set<string>();
  const queue = roots(manifest, files);
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (reached.has(file)) continue;
    reached.add(file);
    if (file.endsWith('.map') || CODE.test(file)) queue.push(...edges(file, read(file), listed));
  }
  return files.filter((file) => !reached.has(file));
}
