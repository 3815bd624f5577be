import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));

describe('pnpm demo', () => {
  it('runs the whole flow on loopback and exits 0 within a minute', async () => {
    const child = spawn('pnpm', ['demo'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    // 'close', not 'exit': only then has all of the output been read.
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    clearTimeout(timer);
    expect(output).toMatch(/fails on purpose → 500/);
    expect(output).toMatch(/attempt #2 \(round 1\) delivered HTTP 200/);
    expect(output).toMatch(/is a duplicate → 200, handler not run/);
    for (const status of ['APPROVED', 'REJECTED', 'PENDING', 'ERROR']) expect(output).toContain(`will end ${status}`);
    expect(output).toMatch(/done: every expectation held/);
    expect(code, output).toBe(0);
  }, 70_000);
});
