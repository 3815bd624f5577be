import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

/**
 * Spawns the CLI from source, as `kyc-sandbox <args>` would run: one Node process with tsx's
 * loader (not the `tsx` wrapper, which runs the CLI in a child of its own), so a signal sent
 * to `child`, SIGKILL included, reaches the CLI itself.
 */
export function spawnCli(args: readonly string[], options: { stdin?: string; env?: Record<string, string> } = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@kyc/source', 'src/cli.ts', ...args], {
    cwd: packageDir,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  if (options.stdin !== undefined) child.stdin?.end(options.stdin);
  else child.stdin?.end();
  // 'close', not 'exit': only then has all of stdout and stderr been read.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return {
    child,
    output: () => ({ stdout, stderr }),
    /** Resolves with the exit code; kills the process after `timeoutMs` (bounded). */
    async result(timeoutMs = 30_000) {
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return { code, stdout, stderr };
    },
    async waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const match = stdout.match(pattern);
        if (match) return match;
        if (Date.now() > until || child.exitCode !== null) {
          throw new Error(`no ${pattern} in output; stdout: ${stdout}\nstderr: ${stderr}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}

export type CliProcess = ReturnType<typeof spawnCli> & { child: ChildProcess };
