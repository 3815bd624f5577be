import { execFileSync } from 'node:child_process';
import {
  closeSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  rmSync,
  statfsSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { auditDeliveries } from '../support/audit.js';
import { CHAOS_KEY, startChaosReceiver } from '../support/chaos-receiver.js';
import { spawnPatchedScript } from '../support/patched-script.js';
import { pause } from '../support/pause.js';
import { readSqliteRecords } from '../support/read-sqlite-records.js';
import { Invariants, type RunContext, type Scenario } from '../support/scenario.js';
import { accountSends, countPerId } from '../support/send-accounting.js';
import { spawnScript } from '../support/spawn-script.js';

const FACTOR = 1000;
const DISK_MIB = 16;

/** A small tmpfs of our own, so "the disk is full" is real and touches nothing else. */
function mountSmallDisk(path: string, megabytes: number): () => void {
  mkdirSync(path, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m`, 'tmpfs', path]);
  let mounted = true;
  const unmount = () => {
    if (!mounted) return;
    mounted = false;
    execFileSync('umount', ['-l', path]);
  };
  process.once('exit', unmount);
  return unmount;
}

/**
 * Writes `path` until the disk is full, then gives `leave` bytes back. Not one write of the free
 * space measured first: the engine writes meanwhile, and such a write then failed with ENOSPC.
 */
function fillDisk(path: string, leave: number): void {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  let size = 0;
  try {
    for (;;) {
      try {
        size += writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
        throw error;
      }
    }
    ftruncateSync(fd, Math.max(0, size - leave));
  } finally {
    closeSync(fd);
  }
}

const DROP_HELD = [
  {
    file: 'store/sqlite/commit-queue.ts',
    search:
      '    for (const item of batch) if (!item.hold) item.reject(error);\n    this.#queue = batch.filter((item) => item.hold);',
    replace: '    for (const item of batch) item.reject(error);\n    this.#queue = [];',
  },
];

export const diskFull: Scenario = {
  name: 'disk-full',
  title: 'Embedded engine, SQLite, on a disk that fills up under load and is freed again',
  breaks: ['ack-early', 'drop-held'],
  async run(context: RunContext) {
    const invariants = new Invariants();
    const disk = join(context.dir, 'disk');
    // Room, once freed, for what the run writes after the full spell: the database (~3.5 MB) and
    // a WAL the checkpointer restarts past ~4 MB. At 8 MiB the data alone filled the disk again.
    const unmount = mountSmallDisk(disk, DISK_MIB);
    const receiver = await startChaosReceiver({
      random: context.random,
      faults: { reset: 0, resetMidBody: 0, hang: 0, error: 0.2 },
    });
    try {
      const path = join(disk, 'engine.db');
      const acked = new Set<string>();
      const refusals = new Map<string, number>();
      let leaks = 0;
      const base = {
        store: 'sqlite',
        path,
        ca: receiver.certificate.cert,
        concurrency: 8,
        timeScale: { factor: FACTOR, anchor: Date.now() },
        leaseMs: 1500 * FACTOR,
        deadlineMs: 1000,
        maxWorkerLosses: 100,
        authKey: CHAOS_KEY,
        url: `${receiver.origin}/hook`,
        failUrl: `${receiver.origin}/fail`,
        breakWith: context.breakWith,
      };
      const fullMs = context.mode === 'full' ? 12_000 : 3000;
      const onLine = (line: string) => {
        const [word, id = '', code = '', leak = ''] = line.split(' ');
        if (word === 'ack') acked.add(id);
        if (word === 'refused') {
          refusals.set(code, (refusals.get(code) ?? 0) + 1);
          if (leak !== 'clean') leaks++;
        }
      };
      const ownerConfig = {
        ...base,
        maxLifeMs: 6000 + fullMs,
        enqueue: { prefix: 'disk', intervalMs: 3, failEvery: 1_000_000_000 },
      };
      const worker =
        context.breakWith === 'drop-held'
          ? // The old behaviour: results the store cannot write fail and are thrown away.
            await spawnPatchedScript('engine-worker', ownerConfig, DROP_HELD, onLine)
          : spawnScript('engine-worker', ownerConfig, onLine);
      await worker.waitFor('started');
      await pause(1500);
      // Fill the disk to the last 16 KiB: the next writes of the WAL fail with SQLITE_FULL.
      const filler = join(disk, 'filler');
      const free = () => {
        const stats = statfsSync(disk);
        return stats.bavail * stats.bsize;
      };
      fillDisk(filler, 16 * 1024);
      const fullFrom = Date.now();
      const ackedBefore = acked.size;
      await pause(fullMs);
      const ackedWhileFull = acked.size - ackedBefore;
      rmSync(filler);
      const fullTo = Date.now();
      const code = await worker.exited;
      invariants.check(
        code === 0,
        'the engine process did not survive the full disk',
        () => `${code}: ${worker.stderr().slice(-600)}`,
      );
      const freeAtRestart = free();
      const sizes = readdirSync(disk)
        .map((name) => `${name} ${Math.round(statSync(join(disk, name)).size / 1024)} KiB`)
        .join(', ');
      let refusedWith = '';
      const drain = spawnScript('engine-worker', { ...base, maxLifeMs: 60_000, drain: true }, (line) => {
        if (line.startsWith('refused ')) refusedWith = line;
      });
      const drained = await drain.exited;
      invariants.check(
        drained === 0,
        'the engine did not restart on the freed disk',
        () =>
          `exit ${drained} (${refusedWith || 'no refusal'}, ${freeAtRestart} bytes free): ${drain.stderr().slice(-600)}`,
      );
      const records = await readSqliteRecords(path);
      const audit = auditDeliveries(
        {
          records,
          acked,
          receipts: receiver.receipts,
          handlerRuns: receiver.handlerRuns,
          // No window: a result the full disk could not take is held and recorded later, so every
          // send must be in the attempt log.
          killWindows: [],
          timeScale: FACTOR,
          alwaysFailing: () => false,
        },
        invariants,
      );
      const sends = accountSends(records, countPerId(receiver.receipts));
      invariants.check(sends.sentMoreThanOnce.length === 0, 'sent more than once', () =>
        sends.sentMoreThanOnce.slice(0, 3).join(', '),
      );
      const workerLost = records.filter((r) => r.attemptLog.some((a) => a.outcome === 'worker_lost')).length;
      invariants.check(workerLost === 0, 'a store failure was counted as a lost worker', () => `${workerLost}`);
      const refused = [...refusals.values()].reduce((a, b) => a + b, 0);
      invariants.check(refused > 0, 'the disk never filled (nothing was refused): the scenario tested nothing');
      invariants.check(
        [...refusals.keys()].every((c) => c === 'store_error'),
        'a refused enqueue without the store_error code',
        () => [...refusals.keys()].join(','),
      );
      invariants.check(leaks === 0, 'an enqueue error named the Auth Key', () => `${leaks}`);
      return {
        figures: [
          ['disk', `${DISK_MIB} MiB tmpfs, filled to its last 16 KiB for ${fullMs / 1000} s, then freed`],
          ['spell of the full disk (s)', Math.round((fullTo - fullFrom) / 100) / 10],
          [
            'free at the restart / after the drain (KiB)',
            `${Math.round(freeAtRestart / 1024)} / ${Math.round(free() / 1024)}`,
          ],
          ['files at the restart', sizes],
          [
            'events acknowledged (before / while full / after)',
            `${acked.size} (${ackedBefore} / ${ackedWhileFull} / ${acked.size - ackedBefore - ackedWhileFull})`,
          ],
          ['enqueues refused, by error code', [...refusals].map(([c, n]) => `${c}: ${n}`).join(', ') || 'none'],
          ['lost', [...acked].filter((id) => !records.some((r) => r.id === id)).length],
          ['delivered / failed', `${audit.delivered} / ${audit.failed}`],
          ['sent more than once', sends.sentMoreThanOnce.length],
          ['  of those, explained by the attempt log', sends.explained],
          ['events with a worker_lost attempt', workerLost],
          ['handler runs', [...receiver.handlerRuns.values()].reduce((a, b) => a + b, 0)],
          ['  failed although the handler ran (its 200 never reached the engine)', audit.failedAfterRun],
        ],
        failures: invariants.failures,
      };
    } finally {
      await receiver.close();
      unmount();
    }
  },
};
