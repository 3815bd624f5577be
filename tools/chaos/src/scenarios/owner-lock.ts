import { join } from 'node:path';
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

/**
 * The SQLite owner lock (issue 20): while an engine owns its file and delivers under load, a
 * second engine started on the same file must be refused; when the owner is killed with SIGKILL, its successor must start at once (no stale
 * lock to wait out or clear) and deliver everything acknowledged, resending only what was in
 * flight at the kill.
 */
export const ownerLock: Scenario = {
  name: 'owner-lock',
  title: 'SQLite owner lock: a second engine refused while the owner lives, a SIGKILLed owner replaced at once',
  breaks: ['ack-early'],
  async run(context: RunContext) {
    const handovers = context.mode === 'full' ? 200 : 12;
    const invariants = new Invariants();
    const receiver = await startChaosReceiver({
      random: context.random,
      faults: { reset: 0.02, resetMidBody: 0.02, hang: 0.01, error: 0.05 },
    });
    const path = join(context.dir, 'owned.db');
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
      maxLifeMs: 60_000,
    };
    const acked = new Set<string>();
    const killWindows: KillWindow[] = [];
    const takeoverMs: number[] = [];
    let refused = 0;
    let admitted = 0;
    const owner = (round: number): ChildScript =>
      spawnScript(
        'engine-worker',
        { ...base, enqueue: { prefix: `o${round}`, intervalMs: 4, failEvery: 7 } },
        (line) => {
          if (line.startsWith('ack ')) acked.add(line.slice(4));
        },
      );
    let current = owner(0);
    await current.waitFor('started');
    for (let round = 1; round <= handovers; round++) {
      // An intruder while the owner delivers.
      let refusal = '';
      const intruder = spawnScript('engine-worker', base, (line) => {
        if (line.startsWith('refused ')) refusal = line;
      });
      const answer = await Promise.race([
        intruder.waitFor('refused').then(() => 'refused' as const),
        intruder.waitFor('started').then(() => 'admitted' as const),
      ]).catch(() => 'exited' as const);
      if (answer === 'refused' && refusal === 'refused store_locked') refused++;
      else {
        admitted++;
        invariants.check(false, 'a second engine was not refused while the owner lived', () => `${answer} ${refusal}`);
      }
      intruder.kill('SIGKILL');
      await intruder.exited;
      await pause(between(context.random, 0, 300));
      const killedAt = Date.now();
      current.kill('SIGKILL');
      await current.exited;
      killWindows.push({ from: current.spawnedAt, to: killedAt + 20 });
      const successor = owner(round);
      try {
        await successor.waitFor('started');
        takeoverMs.push(Date.now() - killedAt);
      } catch {
        invariants.check(false, 'the successor of a killed owner did not start', () => successor.stderr().slice(-300));
      }
      current = successor;
      if (round % 50 === 0) context.progress(`owner-lock: ${round}/${handovers} handovers, ${acked.size} acknowledged`);
    }
    current.kill('SIGKILL');
    await current.exited;
    killWindows.push({ from: current.spawnedAt, to: Date.now() + 20 });
    // The last owner delivers what is left and exits once nothing is pending.
    for (let restart = 0; restart < 5; restart++) {
      const last = spawnScript('engine-worker', { ...base, drain: true });
      const code = await last.exited;
      invariants.check(code === 0, 'the drain worker failed', () => `${code}: ${last.stderr().slice(-300)}`);
      const db = new Database(path);
      const left = (db.prepare("SELECT count(*) AS n FROM deliveries WHERE state = 'pending'").get() as { n: number })
        .n;
      db.close();
      if (left === 0) break;
    }
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
    const stored = new Set(records.map((record) => record.id));
    const sorted = [...takeoverMs].sort((a, b) => a - b);
    return {
      figures: [
        ['handovers (owner SIGKILLed, successor started)', takeoverMs.length],
        ['second engines refused while the owner lived', refused],
        ['  admitted', admitted],
        ['takeover: kill → successor claiming, median (ms)', sorted[Math.floor(sorted.length / 2)] ?? 0],
        ['  slowest (ms)', sorted.at(-1) ?? 0],
        ['events acknowledged', acked.size],
        ['lost', [...acked].filter((id) => !stored.has(id)).length],
        ['delivered', audit.delivered],
        ['failed after 4 attempts', audit.failed],
        ['duplicate sends (in flight at a kill, unrecorded)', audit.unrecorded.length],
      ],
      failures: invariants.failures,
    };
  },
};
