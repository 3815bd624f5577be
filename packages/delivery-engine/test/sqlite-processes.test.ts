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
  it('make exactly one owner per file; the others are refused with store_locked, never crashed', {
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
    expect(lines.filter((line) => !line.endsWith(' ok') && !line.includes(' store_locked: '))).toEqual([]);
    // The starters hold their lock until all four have tried: one owner per round.
    for (let round = 0; round < ROUNDS; round++) {
      expect(
        lines.filter((line) => line === `${round} ok`),
        `round ${round}`,
      ).toHaveLength(1);
    }
  });
});
