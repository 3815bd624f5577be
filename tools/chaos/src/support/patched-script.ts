import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { type ChildScript, watchChild } from './spawn-script.js';

const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));
const OUT = fileURLToPath(new URL('../../.tmp/', import.meta.url));
const built: string[] = [];
process.once('exit', () => {
  for (const file of built) rmSync(file, { force: true });
});

/** One edit of one source file: `search` must occur in it exactly once. */
export interface SourcePatch {
  /** The end of the file's path, e.g. `store/postgres/grouped-statement.ts`. */
  readonly file: string;
  readonly search: string;
  readonly replace: string;
}

/**
 * A deliberately broken build of the library for `--break`: the worker is bundled from the tree
 * as `spawnScript` does, with each patch applied to the named source. A patch that no longer
 * matches (the code moved on) ends the run with an error instead of silently running the
 * healthy code, which would make the scenario "catch" nothing.
 */
async function bundlePatched(name: string, patches: readonly SourcePatch[]): Promise<string> {
  const outfile = `${OUT}${name}-patched-${process.pid}-${built.length}.mjs`;
  const applied = new Set<SourcePatch>();
  const plugin: Plugin = {
    name: 'chaos-break',
    setup(esbuild) {
      esbuild.onLoad({ filter: /\.ts$/ }, (args) => {
        const mine = patches.filter((p) => args.path.endsWith(p.file));
        if (mine.length === 0) return undefined;
        let contents = readFileSync(args.path, 'utf8');
        for (const patch of mine) {
          if (contents.split(patch.search).length !== 2) {
            throw new Error(`--break: ${patch.file} no longer contains ${JSON.stringify(patch.search)}`);
          }
          contents = contents.replace(patch.search, patch.replace);
          applied.add(patch);
        }
        return { contents, loader: 'ts' };
      });
    },
  };
  // Plugins need esbuild's asynchronous API.
  await build({
    entryPoints: [fileURLToPath(new URL(`../workers/${name}.ts`, import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    conditions: ['@kyc/source'],
    external: ['better-sqlite3', 'pg', 'pg-native', 'ioredis', 'bufferutil', 'utf-8-validate'],
    banner: {
      js: "import { createRequire as __chaosRequire } from 'node:module'; const require = __chaosRequire(import.meta.url);",
    },
    plugins: [plugin],
    outfile,
    logLevel: 'warning',
  });
  const missed = patches.filter((p) => !applied.has(p));
  if (missed.length > 0) throw new Error(`--break: no file ends with ${missed.map((p) => p.file).join(', ')}`);
  built.push(outfile);
  return outfile;
}

/** `spawnScript` for a broken build: `tools/chaos/src/workers/<name>.ts` with `patches` applied. */
export async function spawnPatchedScript(
  name: string,
  config: unknown,
  patches: readonly SourcePatch[],
  onLine: (line: string) => void = () => undefined,
): Promise<ChildScript> {
  const child: ChildProcess = spawn(process.execPath, [await bundlePatched(name, patches)], {
    cwd: ROOT,
    env: { ...process.env, KYC_CHAOS: JSON.stringify(config) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return watchChild(name, child, onLine);
}
