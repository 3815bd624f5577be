import { cpSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { accountingFigures, runOwner } from '../support/owner-run.js';
import { Invariants, type RunContext, type Scenario } from '../support/scenario.js';

const ENGINE_SOURCE = fileURLToPath(new URL('../../../../packages/delivery-engine/src/index.ts', import.meta.url));

/** The broken build: every copy of the engine believes it is alone in the process. */
const NO_REGISTRY = { file: 'store/sqlite/owner-registry.ts', search: '  if (owners.has(realPath)) return false;\n' };

/**
 * A second `node_modules` tree in one folder: the engine bundled from the sources, beside its own
 * copy of better-sqlite3, so the copy loads a second SQLite library (which does not see the first
 * one's locks), as two installed versions of the package would.
 */
async function secondCopy(dir: string, broken: boolean): Promise<string> {
  const modules = join(dir, 'node_modules');
  const driver = dirname(realpathSync(createRequire(import.meta.url).resolve('better-sqlite3/package.json')));
  mkdirSync(join(modules, 'better-sqlite3', 'prebuilds'), { recursive: true });
  for (const part of ['lib', 'package.json', `prebuilds/${process.platform}-${process.arch}.node`]) {
    cpSync(join(driver, part), join(modules, 'better-sqlite3', part), { recursive: true });
  }
  const patch: Plugin = {
    name: 'no-registry',
    setup(esbuild) {
      esbuild.onLoad({ filter: /owner-registry\.ts$/ }, (args) => {
        if (!broken) return undefined;
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes(NO_REGISTRY.search)) throw new Error(`--break: ${NO_REGISTRY.file} moved on`);
        return { contents: source.replace(NO_REGISTRY.search, ''), loader: 'ts' };
      });
    },
  };
  const outfile = join(dir, 'engine-copy.mjs');
  await build({
    entryPoints: [ENGINE_SOURCE],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    conditions: ['@kyc/source'],
    external: ['better-sqlite3'],
    banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" },
    plugins: [patch],
    outfile,
    logLevel: 'warning',
  });
  return outfile;
}

/**
 * Two copies of the engine package in one process (two `node_modules` trees, a common result of
 * mismatched versions) on one file. Each loads its own SQLite library, so the lock file's POSIX
 * lock, held per process, does not keep them apart: before the fix both started and 40 of 40
 * events were sent twice. A registry on `globalThis`, shared by every copy, refuses the second.
 */
export const twoCopies: Scenario = {
  name: 'two-copies',
  title: 'SQLite owner: a second copy of the engine package in the same process opens the same file',
  breaks: ['no-registry'],
  async run(context: RunContext) {
    const invariants = new Invariants();
    const copy = await secondCopy(join(context.dir, 'second-tree'), context.breakWith === 'no-registry');
    const result = await runOwner({
      context,
      invariants,
      events: context.mode === 'full' ? 2000 : 300,
      worker: { foreignCopy: copy },
      async fault() {},
    });
    const answer = result.lines.find((line) => line.startsWith('second-copy ')) ?? 'no answer';
    invariants.check(
      answer === 'second-copy refused store_locked',
      'a second copy of the package was let own the file',
      () => answer,
    );
    return {
      figures: [
        ['the second copy, opening the owned file', answer.replace('second-copy ', '')],
        ...accountingFigures(result),
      ],
      failures: invariants.failures,
    };
  },
};
