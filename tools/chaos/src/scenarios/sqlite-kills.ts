import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createDeliveryEngine, sqliteDeliveryStore } from '@kyc/delivery-engine';
import Database from 'better-sqlite3';
import { auditDeliveries, type KillWindow } from '../support/audit.js';
import { between } from '../support/between.js';
import { CHAOS_KEY, startChaosReceiver } from '../support/chaos-receiver.js';
import { pause } from '../support/pause.js';
import { readSqliteRecords } from '../support/read-sqlite-records.js';
import { Invariants, type RunContext, type Scenario } from '../support/scenario.js';
import { type ChildScript, spawnScript } from '../support/spawn-script.js';

// The engine's clock runs 1000× fast: the 1 + 5 + 15 minute schedule takes 1.26 s of wall time.
const FACTOR = 1000;

/** What a kill left behind in a new file: nothing, a file without a complete schema, or a migrated one. */
function schemaState(path: string): 'no_file' | 'partial' | 'migrated' {
  if (!existsSync(path)) return 'no_file';
  const raw = new Database(path);
  try {
    const tables = raw
      .prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'delivery_schema_migrations'")
      .get() as {
      n: number;
    };
    if (tables.n === 0) return 'partial';
    const rows = raw.prepare('SELECT count(*) AS n FROM delivery_schema_migrations').get() as { n: number };
    return rows.n > 0 ? 'migrated' : 'partial';
  } finally {
    raw.close();
  }
}

export const sqliteKills: Scenario = {
  name: 'sqlite-kills',
  title: 'Embedded engine, SQLite, one process: SIGKILL at random moments under a steady enqueue load',
  breaks: ['ack-early'],
  // A second receipt is excused only if it was in flight at a kill, judged by time windows with a
  // 1 s deadline: beside the other lanes, three resends fell outside them in a full pnpm test.
  alone: true,
  async run(context: RunContext) {
    const full = context.mode === 'full';
    const kills = full ? 1000 : 30;
    const migrationKills = full ? 100 : 6;
    const invariants = new Invariants();
    const receiver = await startChaosReceiver({
      random: context.random,
      faults: { reset: 0.04, resetMidBody: 0.03, hang: 0.02, error: 0.12 },
    });
    const path = join(context.dir, 'kills.db');
    const anchor = Date.now();
    const base = {
      store: 'sqlite',
      path,
      ca: receiver.certificate.cert,
      concurrency: 8,
      timeScale: { factor: FACTOR, anchor },
      // 1.5 s of wall time: beyond the 1 s (wall) deadline plus the time to record.
      leaseMs: 1500 * FACTOR,
      deadlineMs: 1000,
      // A delivery can be caught by many kills in a row; the worker_lost cap is its own suite.
      maxWorkerLosses: 100,
      authKey: CHAOS_KEY,
      url: `${receiver.origin}/hook`,
      failUrl: `${receiver.origin}/fail`,
      breakWith: context.breakWith,
      maxLifeMs: 60_000,
    };
    const acked = new Set<string>();
    const killWindows: KillWindow[] = [];
    const started = Date.now();
    let killsDone = 0;
    let killsBeforeStart = 0;
    for (let round = 0; round < kills; round++) {
      const worker: ChildScript = spawnScript(
        'engine-worker',
        { ...base, enqueue: { prefix: `r${round}`, intervalMs: 4, failEvery: 5 } },
        (line) => {
          if (line.startsWith('ack ')) acked.add(line.slice(4));
        },
      );
      // One kill in ten lands while the process opens the store and starts the engine; the rest
      // while it enqueues and delivers.
      if (round % 10 === 0) {
        await worker.waitFor('opening').catch(() => undefined);
        await pause(between(context.random, 0, 60));
      } else {
        await worker.waitFor('started');
        await pause(between(context.random, 0, 400));
      }
      const killedAt = Date.now();
      worker.kill('SIGKILL');
      const code = await worker.exited;
      if (code === 'SIGKILL') killsDone++;
      else invariants.check(false, 'a worker ended on its own before its kill', () => `${code}: ${worker.stderr()}`);
      if (
        !(await worker.waitFor('started').then(
          () => true,
          () => false,
        ))
      )
        killsBeforeStart++;
      killWindows.push({ from: worker.spawnedAt, to: killedAt + 20 });
      if (round % 50 === 49)
        context.progress(`sqlite-kills: ${round + 1}/${kills} kills, ${acked.size} events acknowledged`);
    }
    const killPhaseMs = Date.now() - started;

    // Kills during the migration of a new file: the next start must find a usable store.
    const states = { no_file: 0, partial: 0, migrated: 0 };
    for (let i = 0; i < migrationKills; i++) {
      const fresh = join(context.dir, `migrate-${i}.db`);
      const worker = spawnScript('engine-worker', { ...base, path: fresh, maxLifeMs: 5000 });
      await worker.waitFor('opening').catch(() => undefined);
      await pause(between(context.random, 0, 25));
      worker.kill('SIGKILL');
      await worker.exited;
      killsDone++;
      states[schemaState(fresh)]++;
      try {
        const store = sqliteDeliveryStore({ path: fresh });
        const engine = createDeliveryEngine({ store, allowPrivateNetworks: ['127.0.0.0/8'] });
        const { id } = await engine.enqueue({ url: base.url, body: JSON.stringify({ sessionId: `m-${i}` }) });
        invariants.check(
          (await engine.getDelivery(id))?.state === 'pending',
          'a store killed mid-migration is unusable',
        );
        await store.close();
      } catch (error) {
        invariants.check(false, 'a store killed mid-migration does not reopen', () => String(error));
      }
    }

    // The last restart: a worker with no load runs until nothing is pending.
    const drainStarted = Date.now();
    for (let restart = 0; restart < 5; restart++) {
      const last = spawnScript('engine-worker', { ...base, drain: true });
      const code = await last.exited;
      invariants.check(code === 0, 'the drain worker failed', () => `${code}: ${last.stderr().slice(-500)}`);
      const pending = new Database(path);
      const left = (
        pending.prepare("SELECT count(*) AS n FROM deliveries WHERE state = 'pending'").get() as { n: number }
      ).n;
      pending.close();
      if (left === 0) break;
    }
    const drainMs = Date.now() - drainStarted;
    await receiver.close();

    const records = await readSqliteRecords(path);
    const audit = auditDeliveries(
      {
        records,
        acked,
        receipts: receiver.receipts,
        handlerRuns: receiver.handlerRuns,
        killWindows,
        timeScale: FACTOR,
        alwaysFailing: (record) => record.url.endsWith('/fail'),
      },
      invariants,
    );
    const killsWithAttemptInFlight = killWindows.filter((w) =>
      audit.unrecorded.some((r) => r.at >= w.from && r.at <= w.to),
    ).length;
    const stored = new Set(records.map((r) => r.id));
    return {
      figures: [
        ['SIGKILLs', killsDone],
        ['  during start-up (store open, engine start)', killsBeforeStart],
        ['  during the migration of a new file', migrationKills],
        ['  new files left without a complete schema, reopened fine', states.partial + states.no_file],
        ['  that caught an attempt in flight (sent, not recorded)', killsWithAttemptInFlight],
        ['events enqueued (acknowledged)', acked.size],
        ['events stored', records.length],
        ['  stored but never acknowledged (enqueue in flight at a kill)', records.length - acked.size],
        ['lost', [...acked].filter((id) => !stored.has(id)).length],
        ['delivered', audit.delivered],
        ['failed after 4 attempts', audit.failed],
        ['requests the receiver saw', receiver.receipts.length],
        ['duplicate sends (in flight at a kill, unrecorded)', audit.unrecorded.length],
        ['handler runs', [...receiver.handlerRuns.values()].reduce((a, b) => a + b, 0)],
        ['  failed although the handler ran (its 200 never reached the engine)', audit.failedAfterRun],
        ['latest retry beyond its schedule (wall ms)', audit.maxLateMs],
        ['kill phase (s)', Math.round(killPhaseMs / 100) / 10],
        ['drain after the last kill (s)', Math.round(drainMs / 100) / 10],
      ],
      failures: invariants.failures,
    };
  },
};
