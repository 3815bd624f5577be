// The packages' test folders, copied into a packed-suites project with their imports of the
// package's public entries pointed at the installed package (see run.mjs).
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

// `../src/<file>.js` → the package subpath whose `@kyc/source` condition names that file.
function publicEntries(root, name) {
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

/**
 * Copies one package's `test/` folder, rewriting imports of its public entries; returns what it
 * had to leave out (`notForInstalls`: files left out by name, with the reason).
 */
export function copySuite(root, name, into, notForInstalls) {
  const from = join(root, 'packages', name, 'test');
  const src = join(root, 'packages', name, 'src');
  const entries = publicEntries(root, name);
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
