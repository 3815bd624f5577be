import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));
const OUT = fileURLToPath(new URL('../../.tmp/', import.meta.url));
const bundles = new Map<string, string>();
process.once('exit', () => {
  for (const file of bundles.values()) rmSync(file, { force: true });
});

/**
 * Each child script is bundled once per run from the TypeScript sources in the tree (the
 * `@kyc/source` condition, as the tests use), so what is killed is the code in the tree, never
 * a stale build. A bundle starts in a fifth of the time tsx needs to compile it at every spawn,
 * which is what lets a kill scenario make a thousand kills. Native and driver packages stay
 * external and load from node_modules.
 */
function bundle(name: string): string {
  const cached = bundles.get(name);
  if (cached !== undefined) return cached;
  const outfile = `${OUT}${name}-${process.pid}.mjs`;
  buildSync({
    entryPoints: [fileURLToPath(new URL(`../workers/${name}.ts`, import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    conditions: ['@kyc/source'],
    // ws's optional native helpers (bufferutil, utf-8-validate) are looked up at run time.
    external: ['better-sqlite3', 'pg', 'pg-native', 'ioredis', 'bufferutil', 'utf-8-validate'],
    // CommonJS dependencies inside an ESM bundle still call require().
    banner: {
      js: "import { createRequire as __chaosRequire } from 'node:module'; const require = __chaosRequire(import.meta.url);",
    },
    outfile,
    logLevel: 'warning',
  });
  bundles.set(name, outfile);
  return outfile;
}

export interface ChildScript {
  readonly child: ChildProcess;
  readonly spawnedAt: number;
  /** Resolves with the exit code, or the name of the signal that ended it. */
  readonly exited: Promise<number | string>;
  /** Resolves when the child printed a line starting with `word` (rejects if it exits first). */
  waitFor(word: string): Promise<void>;
  stderr(): string;
  kill(signal?: NodeJS.Signals): void;
}

/**
 * Starts `tools/chaos/src/workers/<name>.ts` in its own process, configured by the `KYC_CHAOS`
 * environment variable (JSON). Each stdout line goes to `onLine`.
 */
export function spawnScript(
  name: string,
  config: unknown,
  onLine: (line: string) => void = () => undefined,
  options: {
    readonly wrap?: readonly string[];
    readonly env?: Record<string, string>;
    readonly nodeFlags?: readonly string[];
  } = {},
): ChildScript {
  const args = [...(options.nodeFlags ?? []), bundle(name)];
  const [command, ...prefix] = options.wrap ?? [];
  const child =
    command === undefined
      ? spawn(process.execPath, args, {
          cwd: ROOT,
          env: { ...process.env, ...options.env, KYC_CHAOS: JSON.stringify(config) },
          stdio: ['ignore', 'pipe', 'pipe'],
        })
      : spawn(command, [...prefix, process.execPath, ...args], {
          cwd: ROOT,
          env: { ...process.env, ...options.env, KYC_CHAOS: JSON.stringify(config) },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
  return watchChild(name, child, onLine);
}

/**
 * The parent's view of a child script: its stdout read line by line (each line to `onLine`, its
 * first word remembered for `waitFor`), the tail of its stderr, its exit.
 */
export function watchChild(name: string, child: ChildProcess, onLine: (line: string) => void): ChildScript {
  const spawnedAt = Date.now();
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    // Keep the tail only: a child that logs in a loop must not grow the parent without bound.
    errors = (errors + chunk.toString()).slice(-20_000);
  });
  const waiters: { word: string; resolve: () => void }[] = [];
  const seen = new Set<string>();
  let rest = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString()).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      const word = line.split(' ', 1)[0] ?? '';
      seen.add(word);
      for (const waiter of waiters.filter((w) => w.word === word)) waiter.resolve();
      onLine(line);
    }
  });
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  return {
    child,
    spawnedAt,
    exited,
    stderr: () => errors,
    kill: (signal = 'SIGKILL') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
    waitFor: (word) =>
      seen.has(word)
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            waiters.push({ word, resolve });
            void exited.then((code) =>
              reject(new Error(`${name} exited (${code}) before printing "${word}": ${errors.slice(-2000)}`)),
            );
          }),
  };
}
