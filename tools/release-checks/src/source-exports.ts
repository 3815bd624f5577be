import { join, resolve } from 'node:path';
import { API } from 'typescript/unstable/sync';
import type { PublicPackage } from './workspace.ts';

/** The names one public entry point's source file exports (values and types alike). */
export interface SourceExports {
  readonly packageName: string;
  /** `.` or `./webhook-reader`, as in the exports map. */
  readonly subpath: string;
  /** The source file its `@kyc/source` condition names, absolute. */
  readonly sourceFile: string;
  readonly names: ReadonlySet<string>;
}

/**
 * Asks the TypeScript checker (the repository's own TypeScript 7, through its `unstable/sync`
 * API, the only programmatic API that version has) which names each entry point's source file
 * exports, `export *` chains followed. The source is the reference because it is what we wrote;
 * the declarations and the API reports are derived from it and can be wrong (a bundler's chunk
 * under an entry's name exported `t`, `_`, `A`…). One checker process serves every package.
 */
export function sourceExports(packages: readonly PublicPackage[]): SourceExports[] {
  const api = new API({ cwd: resolve(packages[0]?.dir ?? '.', '..') });
  try {
    return packages.flatMap((pkg) => {
      const entries = sourceEntries(pkg);
      if (entries.length === 0) return [];
      const snapshot = api.updateSnapshot({ openProject: join(pkg.dir, 'tsconfig.json') });
      const project = snapshot.getProject(join(pkg.dir, 'tsconfig.json')) ?? snapshot.getProjects()[0];
      if (project === undefined) throw new Error(`TypeScript opened no project for ${pkg.dir}/tsconfig.json`);
      return entries.map(({ subpath, sourceFile }) => {
        const file = project.program.getSourceFile(sourceFile);
        const moduleSymbol = file === undefined ? undefined : project.checker.getSymbolAtLocation(file);
        if (moduleSymbol === undefined)
          throw new Error(`${pkg.name}${subpath.slice(1)}: ${sourceFile} is not a module`);
        const names = new Set(project.checker.getExportsOfModule(moduleSymbol).map((symbol) => symbol.name));
        return { packageName: pkg.name, subpath, sourceFile, names };
      });
    });
  } finally {
    api.close();
  }
}

/** Each exports-map subpath whose target names a source file through the `@kyc/source` condition. */
export function sourceEntries(pkg: PublicPackage): { subpath: string; sourceFile: string }[] {
  const entries: { subpath: string; sourceFile: string }[] = [];
  for (const [subpath, target] of Object.entries(pkg.manifest.exports ?? {})) {
    if (target === null || typeof target !== 'object') continue;
    const source = target['@kyc/source'];
    if (typeof source === 'string') entries.push({ subpath, sourceFile: join(pkg.dir, source) });
  }
  return entries;
}
