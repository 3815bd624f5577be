import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'kyc-sqlite-processes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('processes starting together on one new SQLite file', () => {
  it('never make two owners of a file at once; the others are refused with store_locked, never crashed', {
    timeout: 60_000,
  }, async () => {
    // Switching a new file to WAL, and creating the lock file, are races between openers: a
    // second opener once crashed with `store_error: cannot open`, and a lock file created in place
    // made a starter take the creator for an owner.
    const ROUNDS = 25;
    const paths = Array.from({ length: ROUNDS }, (_, round) => join(dir, `together-${round}.db`));
    const starter = fileURLToPath(new URL('./workers/lock-starter.ts', import.meta.url));
    const root = fileURLToPath(new URL('../../..', import.meta.url));
    const config = JSON.stringify({ paths, firstAt: Date.now() + 4000, everyMs: 150 });
    const starters = Array.from({ length: 4 }, () => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@kyc/source', starter], {
        cwd: root,
        env: { ...process.env, KYC_LOCK_STARTER: config },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      return once(child, 'close').then(() => output.trim().split('\n'));
    });
    const lines = (await Promise.all(starters)).flat();
    expect(lines).toHaveLength(4 * ROUNDS);
    expect(lines.filter((line) => !/^\d+ ok \d+ \d+$/.test(line) && !line.includes(' store_locked: '))).toEqual([]);
    // A starter late past the round's owner (a loaded machine starts one late) may own the file
    // after it: never beside it. Every round has an owner, and many found another starter owning it.
    let contested = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const held = lines
        .filter((line) => line.startsWith(`${round} ok `))
        .map((line) => line.split(' ').slice(2).map(Number) as [number, number])
        .sort((a, b) => a[0] - b[0]);
      expect(held.length, `round ${round}`).toBeGreaterThanOrEqual(1);
      held.reduce((previous, next) => {
        expect(next[0], `round ${round}: an owner while another held the lock`).toBeGreaterThanOrEqual(previous[1]);
        return next;
      });
      if (lines.some((line) => line.startsWith(`${round} store_locked: `))) contested++;
    }
    expect(contested).toBeGreaterThan(ROUNDS / 4);
  });
});
