import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { sqliteDeliveryStore } from '@kyc/delivery-engine';
import Database from 'better-sqlite3';
import { accountingFigures, runOwner } from '../support/owner-run.js';
import { pause } from '../support/pause.js';
import { Invariants, type RunContext, type Scenario } from '../support/scenario.js';

/** Past this the checkpointer restarts the WAL (its RESTART_ABOVE_PAGES), which a reader then holds up. */
const WAL_PAGES = 1000;
const PAGE = 4096;

/**
 * `VACUUM INTO target` on a thread of its own: it runs synchronously for as long as the copy takes
 * (seconds for 1 GB), and this process also hosts the receiver, whose answers must not wait on it.
 */
function backupOffThread(path: string, target: string): Promise<void> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(
    `const { workerData } = require('node:worker_threads');
     const Database = require(workerData.driver);
     const db = new Database(workerData.path, { readonly: true });
     db.exec("VACUUM INTO '" + workerData.target.replaceAll("'", "''") + "'");
     db.close();`,
    { eval: true, workerData: { driver, path, target } },
  );
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`backup thread exited ${code}`))));
  });
}

/**
 * A history of delivered events, so the backup copies a database of this size (the full run's
 * 1 GB): rows the owner never reads again, as months of deliveries are.
 */
async function prefill(path: string, bytes: number): Promise<void> {
  const store = sqliteDeliveryStore({ path });
  await store.migrate();
  await store.close();
  const db = new Database(path);
  const body = JSON.stringify({ history: 'x'.repeat(3900) });
  const insert = db.prepare(
    `INSERT INTO deliveries (id, url, origin, body, state, attempts, round_attempts, created_at, finished_at, last_outcome, last_status)
     VALUES (?, 'https://history.example/hook', 'https://history.example', ?, 'delivered', 1, 1, ?, ?, 'delivered', 200)`,
  );
  const rows = Math.ceil(bytes / body.length);
  const fill = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) insert.run(`history-${i}`, body, i, i);
  });
  for (let from = 0; from < rows; from += 10_000) fill(from, Math.min(rows, from + 10_000));
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

/**
 * Readers beside a busy SQLite owner: a report that holds one read snapshot for a long time
 * while the WAL is past the checkpointer's restart threshold, then a real `VACUUM INTO` backup.
 * A snapshot keeps the checkpoint from restarting the WAL; the checkpointer used to wait for it
 * holding the write lock, and the owner's event loop froze for its whole busy timeout (10.2 s and
 * 5.1 s measured). The owner must keep its event loop under 50 ms of lag at p99 and fail no write.
 */
export const sqliteReader: Scenario = {
  name: 'sqlite-reader',
  title: 'SQLite owner under load beside a long read snapshot and a VACUUM INTO backup',
  breaks: ['checkpoint-waits'],
  // Its verdict is the owner's event-loop lag (p99 < 50 ms), which another process's load inflates.
  alone: true,
  async run(context: RunContext) {
    const invariants = new Invariants();
    const holdMs = context.mode === 'full' ? 20_000 : 5000;
    let walPages = 0;
    let backupMs = 0;
    let backupBytes = 0;
    const historyBytes = context.mode === 'full' ? 1e9 : 0;
    const result = await runOwner({
      context,
      invariants,
      events: context.mode === 'full' ? 16_000 : 5000,
      intervalMs: 2,
      worker: { reportLag: true },
      breaks: {
        'checkpoint-waits': [
          {
            file: 'store/sqlite/checkpointer.ts',
            search: 'new Database(workerData.path, { timeout: 10 })',
            replace: 'new Database(workerData.path, { timeout: 5000 })',
          },
        ],
      },
      prepare: (path) => (historyBytes > 0 ? prefill(path, historyBytes) : Promise.resolve()),
      async fault(run) {
        const wal = `${run.path}-wal`;
        const pagesNow = () => Math.floor((statSync(wal, { throwIfNoEntry: false })?.size ?? 0) / PAGE);
        for (let waited = 0; waited < 30_000 && pagesNow() <= WAL_PAGES; waited += 100) await pause(100);
        walPages = pagesNow();
        // A report: one read transaction, held.
        const reader = new Database(run.path, { readonly: true });
        reader.exec('BEGIN');
        reader.prepare('SELECT count(*) FROM deliveries').get();
        await pause(holdMs);
        reader.exec('COMMIT');
        reader.close();
        // The documented backup of a live engine.
        const target = join(context.dir, 'backup.db');
        const started = performance.now();
        await backupOffThread(run.path, target);
        backupMs = Math.round(performance.now() - started);
        backupBytes = statSync(target).size;
      },
    });
    const lag = result.lines.find((line) => line.startsWith('lag '))?.split(' ') ?? [];
    const [p99, max] = [Number(lag[1]), Number(lag[2])];
    const failedWrites = result.ownerStderr.split('\n').filter((line) => line.includes('could not record')).length;
    invariants.check(walPages > WAL_PAGES, 'the WAL never passed the restart threshold: the scenario tested nothing');
    invariants.check(p99 < 50, "the owner's event loop lagged 50 ms or more at p99", () => `${p99} ms`);
    invariants.check(max < 1000, "the owner's event loop stalled for a second or more", () => `${max} ms`);
    invariants.check(result.refused === 0, 'an enqueue failed beside the readers', () => `${result.refused}`);
    invariants.check(failedWrites === 0, 'a result write failed beside the readers', () => `${failedWrites}`);
    return {
      figures: [
        ['WAL when the snapshot was taken (pages)', walPages],
        ['read snapshot held (s)', holdMs / 1000],
        ['VACUUM INTO backup (ms / MB)', `${backupMs} / ${Math.round(backupBytes / 1e5) / 10}`],
        ['owner event-loop lag, p99 / max (ms)', `${p99} / ${max}`],
        ['enqueues refused / result writes failed', `${result.refused} / ${failedWrites}`],
        ...accountingFigures(result),
      ],
      failures: invariants.failures,
    };
  },
};
