import type { DeliveryRecord } from '@kyc/delivery-engine';
import { postgresDeliveryStore } from '@kyc/delivery-engine/postgres';
import pg from 'pg';
import { auditDeliveries, type KillWindow } from '../support/audit.js';
import { between } from '../support/between.js';
import { CHAOS_HOST, CHAOS_KEY, startChaosReceiver } from '../support/chaos-receiver.js';
import { pause } from '../support/pause.js';
import { startPrivatePostgres } from '../support/private-postgres.js';
import { Invariants, type RunContext, type Scenario } from '../support/scenario.js';
import { CHAOS_SEALING_KEYS } from '../support/sealing-keys.js';
import { type ChildScript, spawnScript } from '../support/spawn-script.js';

const FACTOR = 1000;
const WORKERS = 4;
const ADDRESSES = Array.from({ length: WORKERS }, (_, i) => `127.0.0.${i + 2}`);

interface Life {
  readonly address: string;
  readonly worker: ChildScript;
  readonly from: number;
  to: number;
  killed: boolean;
}

export const postgresWorkers: Scenario = {
  name: 'postgres-workers',
  title: 'Postgres, 4 worker processes: random worker kills and Postgres stopped (immediate) and restarted',
  breaks: ['enqueue-after-commit'],
  async run(context: RunContext) {
    const full = context.mode === 'full';
    const chaosMs = full ? 240_000 : 20_000;
    const restarts = full ? 10 : 2;
    const invariants = new Invariants();
    const postgres = await startPrivatePostgres(context.dir);
    const receiver = await startChaosReceiver({
      random: context.random,
      faults: { reset: 0.03, resetMidBody: 0.02, hang: 0.01, error: 0.1 },
      hosts: ADDRESSES,
    });
    const pool = new pg.Pool({ connectionString: postgres.url, max: 8, connectionTimeoutMillis: 3000 });
    pool.on('error', () => undefined);
    const lives: Life[] = [];
    const outages: { from: number; to: number }[] = [];
    const services: ChildScript[] = [];
    try {
      const store = postgresDeliveryStore({ pool, sealingKeys: CHAOS_SEALING_KEYS });
      await store.migrate();
      await pool.query('CREATE TABLE sessions (id text PRIMARY KEY, state text NOT NULL)');
      const base = {
        store: 'postgres',
        postgresUrl: postgres.url,
        ca: receiver.certificate.cert,
        concurrency: 8,
        timeScale: { factor: FACTOR, anchor: Date.now() },
        leaseMs: 1500 * FACTOR,
        deadlineMs: 1000,
        maxWorkerLosses: 100,
        authKey: CHAOS_KEY,
        url: '',
        failUrl: '',
        maxLifeMs: chaosMs + 180_000,
      };
      const spawnAt = async (address: string) => {
        const worker = spawnScript('engine-worker', { ...base, resolveTo: address });
        const life: Life = { address, worker, from: Date.now(), to: Number.POSITIVE_INFINITY, killed: false };
        lives.push(life);
        void worker.exited.then(() => {
          life.to = Math.min(life.to, Date.now());
        });
        await worker.waitFor('started');
        return life;
      };
      const current = await Promise.all(ADDRESSES.map(spawnAt));

      // The outbox, in a process of its own that is killed in the middle of its work: a session
      // is finished and its webhook enqueued in one transaction.
      const url = `https://${CHAOS_HOST}:${receiver.port}`;
      const acked = new Set<string>();
      let refused = 0;
      let serviceLives = 0;
      let serviceKills = 0;
      const spawnService = async () => {
        const service = spawnScript(
          'service-worker',
          {
            postgresUrl: postgres.url,
            url,
            authKey: CHAOS_KEY,
            prefix: `s${serviceLives++}`,
            breakWith: context.breakWith,
          },
          (line) => {
            const [word, id = ''] = line.split(' ');
            if (word === 'ack') acked.add(id);
            if (word === 'refused') refused++;
          },
        );
        services.push(service);
        await service.waitFor('started');
        return service;
      };

      const started = Date.now();
      const restartEvery = chaosMs / (restarts + 1);
      let nextRestart = started + restartEvery;
      let kills = 0;
      // The service dies every 0.1–0.7 s of its life, wherever it is in a transaction.
      const serviceChaos = (async () => {
        while (Date.now() - started < chaosMs) {
          const service = await spawnService();
          await pause(between(context.random, 100, 700));
          service.kill('SIGKILL');
          await service.exited;
          serviceKills++;
        }
      })();
      while (Date.now() - started < chaosMs) {
        await pause(between(context.random, 300, 1500));
        if (Date.now() >= nextRestart && outages.length < restarts) {
          const outage = { from: Date.now(), to: Number.POSITIVE_INFINITY };
          outages.push(outage);
          postgres.stopImmediate();
          await pause(between(context.random, 300, 2500));
          postgres.start();
          outage.to = Date.now();
          nextRestart += restartEvery;
          context.progress(
            `postgres-workers: restart ${outages.length}/${restarts}, ${kills} kills, ${acked.size} sessions`,
          );
          continue;
        }
        const slot = between(context.random, 0, WORKERS - 1);
        const life = current[slot];
        if (life === undefined) continue;
        life.killed = true;
        life.to = Date.now() + 20;
        life.worker.kill('SIGKILL');
        await life.worker.exited;
        kills++;
        current[slot] = await spawnAt(life.address);
      }
      await serviceChaos;

      // The survivors finish the work: no restart of their own.
      const drainStarted = Date.now();
      for (let i = 0; i < 120; i++) {
        const { rows } = await pool.query("SELECT count(*)::int AS n FROM deliveries WHERE state = 'pending'");
        if (rows[0]?.n === 0) break;
        await pause(500);
      }
      const drainMs = Date.now() - drainStarted;
      for (const life of current) {
        invariants.check(life.worker.child.exitCode === null, 'a worker died on its own', () =>
          life.worker.stderr().slice(-400),
        );
        life.worker.kill('SIGKILL');
        await life.worker.exited;
      }

      // Workers alive through a restart must have sent again after it, without a restart of their
      // own. Judged against the other workers as well as the clock: a worker counts as stuck when
      // it sent nothing for 5 s after the restart while the others, sharing its queue, sent 200
      // requests. A clock alone is not enough: on a 2-core machine at load 40 a healthy process
      // can go seconds without a turn, and everyone is slowed alike.
      let resumed = 0;
      for (const outage of outages) {
        for (const life of lives) {
          if (!(life.from < outage.from && life.to > outage.to + 5000)) continue;
          const after = receiver.receipts.filter((r) => r.at > outage.to && r.at < life.to);
          const own = after.filter((r) => r.localAddress === life.address).length;
          if (own === 0 && after.length < 200) continue;
          invariants.check(
            own > 0,
            'a worker did not resume after a Postgres restart',
            () =>
              `${life.address}: 0 of ${after.length} requests after the restart; ${life.worker.stderr().slice(-300)}`,
          );
          if (own > 0) resumed++;
        }
      }

      const { rows: ids } = await pool.query('SELECT id FROM deliveries');
      const records: DeliveryRecord[] = [];
      for (const { id } of ids as { id: string }[]) {
        const record = await store.get(id);
        if (record !== undefined) records.push(record);
      }
      // Checked per session, so a broken build names the sessions it lost the webhook of.
      const { rows: sessionsWithout } = await pool.query(
        'SELECT s.id FROM sessions s WHERE NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.id = s.id) ORDER BY s.id',
      );
      const { rows: webhooksWithout } = await pool.query(
        'SELECT d.id FROM deliveries d WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = d.id) ORDER BY d.id',
      );
      for (const { id } of sessionsWithout as { id: string }[]) {
        invariants.check(false, 'outbox: a finished session without its webhook', () => id);
      }
      for (const { id } of webhooksWithout as { id: string }[]) {
        invariants.check(false, 'outbox: a webhook without its finished session', () => id);
      }
      const killWindows: KillWindow[] = [
        ...lives.filter((l) => l.killed).map((l) => ({ from: l.from, to: l.to, address: l.address })),
        // An attempt whose result could not be written while Postgres was down is sent again
        // once its lease ends: count it with the kills (at-least-once), from a deadline before.
        ...outages.map((o) => ({ from: o.from - 1500, to: o.to + 1500 })),
      ];
      const audit = auditDeliveries(
        {
          records,
          acked,
          receipts: receiver.receipts,
          handlerRuns: receiver.handlerRuns,
          killWindows,
          timeScale: FACTOR,
          alwaysFailing: (record) => record.url.endsWith('/fail'),
          byAddress: true,
        },
        invariants,
      );
      return {
        figures: [
          ['worker processes at once', WORKERS],
          ['worker SIGKILLs', kills],
          ['Postgres stops (immediate) and restarts', outages.length],
          ['  longest outage (ms)', Math.max(0, ...outages.map((o) => o.to - o.from))],
          ['  workers alive through a restart that resumed on their own', resumed],
          ['service SIGKILLs (in the middle of finishing sessions)', serviceKills],
          ['sessions finished with their webhook in one transaction', acked.size],
          ['  finish transactions refused during outages (nothing committed)', refused],
          [
            '  finished sessions without a webhook / webhooks without a session',
            `${sessionsWithout.length} / ${webhooksWithout.length}`,
          ],
          ['lost', [...acked].filter((id) => !records.some((r) => r.id === id)).length],
          ['delivered', audit.delivered],
          ['failed after 4 attempts', audit.failed],
          ['requests the receiver saw', receiver.receipts.length],
          ['duplicate sends (in flight at a kill or an outage, unrecorded)', audit.unrecorded.length],
          ['handler runs', [...receiver.handlerRuns.values()].reduce((a, b) => a + b, 0)],
          ['  failed although the handler ran (its 200 never reached the engine)', audit.failedAfterRun],
          ['chaos phase (s)', Math.round(chaosMs / 1000)],
          ['drain after the chaos (s)', Math.round(drainMs / 100) / 10],
        ],
        failures: invariants.failures,
      };
    } finally {
      for (const life of lives) life.worker.kill('SIGKILL');
      for (const service of services) service.kill('SIGKILL');
      await pool.end().catch(() => undefined);
      await receiver.close();
      postgres.destroy();
    }
  },
};
