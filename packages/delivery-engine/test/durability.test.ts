import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createDeliveryEngine, type SqliteDurability, sqliteDeliveryStore } from '../src/index.js';
import { bodyFor } from './support/attempts.js';
import { loopbackOptions, startReceiver } from './support/receiver.js';

const WORKER = fileURLToPath(new URL('./workers/durability-worker.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'kyc-durability-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const strace = spawnSync('strace', ['-V']);
if (strace.error !== undefined) {
  throw new Error('the durability suite counts fsync calls with strace: install it (apt-get install -y strace)');
}

/** Runs the worker under strace; the fsyncs of the WAL between its two markers. */
function walSyncs(name: string, durability: SqliteDurability, events: number, together: boolean): number {
  const path = join(dir, `${name}.db`);
  const trace = join(dir, `${name}.strace`);
  const run = spawnSync(
    'strace',
    [
      '-f',
      '-y',
      '-e',
      'trace=fsync,fdatasync',
      '-o',
      trace,
      process.execPath,
      '--import',
      'tsx',
      '--conditions=@kyc/source',
      WORKER,
    ],
    { cwd: ROOT, env: { ...process.env, KYC_DURABILITY: JSON.stringify({ path, durability, events, together }) } },
  );
  expect(run.status, run.stderr.toString()).toBe(0);
  const lines = readFileSync(trace, 'utf8').split('\n');
  const from = lines.findIndex((line) => line.includes(`${path}.start>`));
  const to = lines.findIndex((line) => line.includes(`${path}.end>`));
  expect(from).toBeGreaterThan(-1);
  expect(to).toBeGreaterThan(from);
  return lines.slice(from, to).filter((line) => line.includes(`${path}-wal>`)).length;
}

describe("durability: 'power-loss'", () => {
  it('syncs the write-ahead log once per group commit, not once per enqueue', { timeout: 60_000 }, () => {
    const together = walSyncs('together', 'power-loss', 200, true);
    expect(together).toBeGreaterThanOrEqual(1);
    expect(together).toBeLessThanOrEqual(3);
    // One caller awaiting each enqueue: every one is its own commit, synced before it resolves.
    expect(walSyncs('serial', 'power-loss', 20, false)).toBeGreaterThanOrEqual(20);
  });

  it("leaves syncing to checkpoints with the default 'process-crash'", { timeout: 60_000 }, () => {
    expect(walSyncs('default', 'process-crash', 200, true)).toBe(0);
  });

  it('delivers and records like the default mode', async () => {
    const receiver = await startReceiver(() => 200);
    const store = sqliteDeliveryStore({ path: join(dir, 'deliver.db'), durability: 'power-loss' });
    const engine = createDeliveryEngine({ store, ...(await loopbackOptions()) });
    try {
      await engine.start();
      const ids = await Promise.all(
        Array.from(
          { length: 30 },
          async (_, i) => (await engine.enqueue({ url: receiver.url, body: bodyFor(`p-${i}`) })).id,
        ),
      );
      await receiver.waitFor(30);
      await engine.stop();
      for (const id of ids) expect((await store.get(id))?.attemptLog).toHaveLength(1);
    } finally {
      await store.close();
      await receiver.close();
    }
  });

  it('is refused for a database in memory, which survives nothing', () => {
    expect(() => sqliteDeliveryStore({ path: ':memory:', durability: 'power-loss' })).toThrow(/survives nothing/);
  });
});
