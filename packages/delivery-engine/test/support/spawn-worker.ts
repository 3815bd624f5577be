import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const workerScript = (name: string) => fileURLToPath(new URL(`../workers/${name}.ts`, import.meta.url));
// tsx (a root devDependency) runs the TypeScript worker, which imports the package by name: with
// the `@kyc/source` condition the tests use, that is its source (no build needed, no stale dist
// tested); without it (`built`, for the bench), the built package a user installs.
const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));

export interface Worker {
  readonly child: ChildProcess;
  /** Resolves when the worker has started its engine. */
  readonly started: Promise<void>;
  /** Resolves with the exit code (or the signal name). */
  readonly exited: Promise<number | string>;
  stderr(): string;
  stdout(): string;
}

/**
 * Starts `test/workers/<script>.ts` (the engine worker unless named) with `config` in KYC_WORKER;
 * `stdin` opens a pipe to it; `built` runs the package's `dist` instead of its source.
 */
export function spawnWorker(
  config: Record<string, unknown>,
  {
    script = 'engine-worker',
    stdin = false,
    built = false,
  }: { script?: string; stdin?: boolean; built?: boolean } = {},
): Worker {
  const conditions = built ? [] : ['--conditions=@kyc/source'];
  const child = spawn(process.execPath, ['--import', 'tsx', ...conditions, workerScript(script)], {
    cwd: ROOT,
    env: { ...process.env, KYC_WORKER: JSON.stringify(config) },
    stdio: [stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors += chunk.toString();
  });
  const started = new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('started')) resolve();
    });
    child.once('exit', () => reject(new Error(`worker exited before starting: ${output}${errors}`)));
  });
  started.catch(() => undefined);
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  return { child, started, exited, stderr: () => errors, stdout: () => output };
}
