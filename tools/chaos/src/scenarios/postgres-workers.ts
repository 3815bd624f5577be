import { createDeliveryEngine, type DeliveryRecord } from '@kyc/delivery-engine';
import { postgresDeliveryStore } from '@kyc/delivery-engine/postgres';
import pg from 'pg';
import { auditDeliveries, type KillWindow } from '../support/audit.js';
import { between } from '../support/between.js';
import { CHAOS_HOST, CHAOS_KEY, startChaosReceiver } from '../support/chaos-receiver.js';
import { pause } from '../support/pause.js';
import { startPrivatePostgres } from '../support/private-postgres.js';
import { Invariants, type RunContext, type Scenario } from '../support/scenario.js';
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
    try {
      const store = postgresDeliveryStore({ pool });
      await store.migrate();
      await pool.query('CREATE TABLE sessions (id text PRIMARY KEY, state text NOT NULL)');
      // Only enqueues, never started: the outbox side of the service.
      const service = createDeliveryEngine({
        store,
        allowPrivateNetworks: ['127.0.0.0/8'],
        resolver: { resolve: async () => [{ address: '127.0.0.1', family: 4 as const }] },
      });
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

      // The outbox: the session is finished and its webhook enqueued in one transaction.
      const url = `https://${CHAOS_HOST}:${receiver.port}`;
      const acked = new Set<string>();
      let finishing = true;
      let attempted = 0;
      let refused = 0;
      const finisher = (async () => {
        while (finishing) {
          const id = `s-${attempted++}`;
          const client = await pool.connect().catch(() => undefined);
          let broken = false;
          if (client === undefined) {
            refused++;
            await pause(50);
            continue;
          }
          // A checked-out client whose server dies emits 'error' between queries; the next query fails anyway.
          const ignore = () => undefined;
          client.on('error', ignore);
          try {
            const event = {
              id,
              url: attempted % 5 === 0 ? `${url}/fail` : `${url}/hook`,
              authKey: CHAOS_KEY,
              body: JSON.stringify({ sessionId: id, status: 'APPROVED' }),
            };
            await client.query('BEGIN');
            await client.query("INSERT INTO sessions (id, state) VALUES ($1, 'FINISHED')", [id]);
            if (context.breakWith === 'enqueue-after-commit') {
              // The broken build: the gap other engines have, the webhook queued after the commit.
              await client.query('COMMIT');
              await service.enqueue(event);
            } else {
              await service.enqueue(event, { transaction: client });
              await client.query('COMMIT');
            }
            acked.add(id);
          } catch {
            refused++;
            broken = true;
            await client.query('ROLLBACK').catch(() => undefined);
          } finally {
            client.off('error', ignore);
            // A client that saw an error may be dead: drop it rather than return it to the pool.
            client.release(broken);
          }
          await pause(5);
        }
      })();

      const started = Date.now();
      const restartEvery = chaosMs / (restarts + 1);
      let nextRestart = started + restartEvery;
      let kills = 0;
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
      finishing = false;
      await finisher;

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

      // Workers alive through a restart must have sent again after it, without a restart of their own.
      let resumed = 0;
      for (const outage of outages) {
        for (const life of lives) {
          if (!(life.from < outage.from && life.to > outage.to + 5000)) continue;
          const sent = receiver.receipts.some(
            (r) => r.localAddress === life.address && r.at > outage.to && r.at < life.to,
          );
          invariants.check(sent, 'a worker did not resume after a Postgres restart', () => `${life.address}`);
          if (sent) resumed++;
        }
      }

      const { rows: ids } = await pool.query('SELECT id FROM deliveries');
      const records: DeliveryRecord[] = [];
      for (const { id } of ids as { id: string }[]) {
        const record = await store.get(id);
        if (record !== undefined) records.push(record);
      }
      const { rows: orphans } = await pool.query(
        'SELECT (SELECT count(*)::int FROM sessions s WHERE NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.id = s.id)) AS sessions_without, (SELECT count(*)::int FROM deliveries d WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = d.id)) AS deliveries_without',
      );
      const orphan = orphans[0] as { sessions_without: number; deliveries_without: number };
      invariants.check(
        orphan.sessions_without === 0,
        'outbox: a finished session without its webhook',
        () => `${orphan.sessions_without}`,
      );
      invariants.check(
        orphan.deliveries_without === 0,
        'outbox: a webhook without its finished session',
        () => `${orphan.deliveries_without}`,
      );
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
          ['sessions finished with their webhook in one transaction', acked.size],
          ['  finish transactions refused during outages (nothing committed)', refused],
          [
            '  finished sessions without a webhook / webhooks without a session',
            `${orphan.sessions_without} / ${orphan.deliveries_without}`,
          ],
          ['lost', [...acked].filter((id) => !records.some((r) => r.id === id)).length],
          ['delivered', audit.delivered],
          ['failed after 4 attempts', audit.failed],
          ['requests the receiver saw', receiver.receipts.length],
          ['duplicate sends (in flight at a kill or an outage, unrecorded)', audit.unrecorded.length],
          ['handler runs', [...receiver.handlerRuns.values()].reduce((a, b) => a + b, 0)],
          ['chaos phase (s)', Math.round(chaosMs / 1000)],
          ['drain after the chaos (s)', Math.round(drainMs / 100) / 10],
        ],
        failures: invariants.failures,
      };
    } finally {
      for (const life of lives) life.worker.kill('SIGKILL');
      await pool.end().catch(() => undefined);
      await receiver.close();
      postgres.destroy();
    }
  },
};
