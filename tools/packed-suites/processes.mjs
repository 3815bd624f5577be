// The child processes of the packed suites: installs and Vitest runs, several at a time.
import { spawn } from 'node:child_process';

// A child process's exit status, its output kept in memory unless `inherit` (one runtime at a time).
export function spawnAsync(command, args, options, inherit) {
  return new Promise((done) => {
    const child = spawn(command, args, { ...options, stdio: inherit ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout?.on('data', (chunk) => output.push(chunk));
    child.stderr?.on('data', (chunk) => output.push(chunk));
    child.on('error', (error) => done({ status: 1, output: `${error.stack}\n` }));
    child.on('close', (status) => done({ status, output: Buffer.concat(output).toString() }));
  });
}

/** Runs `task` over `items`, `jobs` at a time. */
export async function pool(items, jobs, task) {
  const queue = [...items];
  const lane = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await task(item);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, items.length)) }, lane));
}
