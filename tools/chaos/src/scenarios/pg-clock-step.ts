import pg from 'pg';
import { CHAOS_HOST, CHAOS_KEY, startChaosReceiver } from '../support/chaos-receiver.js';
import { type SourcePatch, spawnPatchedScript } from '../support/patched-script.js';
import { approvedEvent, checkSentOnce, produceAndDrain } from '../support/pg-run.js';
import { startPrivatePostgres } from '../support/private-postgres.js';
import { Invariants, type RunContext, type Scenario } from '../support/scenario.js';
import { type ChildScript, spawnScript } from '../support/spawn-script.js';

const FACTOR = 1000;
const HOUR = 3_600_000;

/** The broken build: leases timed on each worker's clock, as before issue 32. */
const ENGINE_CLOCK_LEASES: readonly SourcePatch[] = [
  {
    file: 'store/postgres/statements.ts',
    search: "const DB_NOW = '(extract(epoch FROM now()) * 1000)::bigint';",
    replace: "const DB_NOW = '$1';",
  },
  { file: 'store/postgres.ts', search: 'r.leaseRealMs ?? r.leaseMs,', replace: 'r.leaseMs,' },
];

export const pgClockStep: Scenario = {
  name: 'pg-clock-step',
  title:
    "Postgres, 2 workers: each worker's clock steps 1 h (one forward then back, the other back then forward) under load",
  breaks: ['engine-clock-lease'],
  async run(context: RunContext) {
    const events = context.mode === 'full' ? 6000 : 800;
    const invariants = new Invariants();
    const postgres = await startPrivatePostgres(context.dir);
    const hosts = ['127.0.0.2', '127.0.0.3'];
    // Some answers hang until the 1 s deadline: attempts are in flight for a while when a clock steps.
    const receiver = await startChaosReceiver({
      random: context.random,
      faults: { reset: 0, resetMidBody: 0, hang: 0.03, error: 0.05 },
      hosts,
    });
    const pool = new pg.Pool({ connectionString: postgres.url, max: 8 });
    const workers: ChildScript[] = [];
    const steps = [
      [
        { atMs: 1500, byMs: HOUR },
        { atMs: 3500, byMs: -HOUR },
      ],
      [
        { atMs: 1500, byMs: -HOUR },
        { atMs: 3500, byMs: HOUR },
      ],
    ];
    try {
      const anchor = Date.now();
      for (const [index, address] of hosts.entries()) {
        const config = {
          postgresUrl: postgres.url,
          ca: receiver.certificate.cert,
          resolveTo: address,
          authKey: CHAOS_KEY,
          timeScale: { factor: FACTOR, anchor },
          leaseMs: 1500 * FACTOR,
          deadlineMs: 1000,
          steps: steps[index] ?? [],
        };
        const worker =
          context.breakWith === 'engine-clock-lease'
            ? await spawnPatchedScript('stepping-engine-worker', config, ENGINE_CLOCK_LEASES)
            : spawnScript('stepping-engine-worker', config);
        workers.push(worker);
        await worker.waitFor('started');
      }
      const { acked, records, drainedMs } = await produceAndDrain({
        pool,
        events,
        event: (n) => approvedEvent(`step-${n}`, `https://${CHAOS_HOST}:${receiver.port}/hook`),
        pauseMs: 40,
        drainPolls: 240,
        workers: workers,
        invariants,
      });
      for (const record of records) {
        invariants.check(
          record.state === 'delivered' || record.state === 'failed',
          'not finished after the drain',
          () => `${record.id} is ${record.state}`,
        );
        invariants.check(
          record.attemptLog.every((a) => a.outcome !== 'worker_lost'),
          'an attempt ended worker_lost (a lease taken from a live worker)',
          () => record.id,
        );
      }
      const sends = checkSentOnce(records, receiver.receipts, invariants);
      return {
        figures: [
          ['worker processes / clock steps of 1 h each', `${workers.length} / 4`],
          ['events acknowledged', acked.length],
          ['lost', acked.length - records.length],
          [
            'delivered / failed',
            `${records.filter((r) => r.state === 'delivered').length} / ${records.filter((r) => r.state === 'failed').length}`,
          ],
          ['requests the receiver saw (hangs and 5xx retried)', receiver.receipts.length],
          ['sent more than once', sends.sentMoreThanOnce.length],
          ['  of those explained by the attempt log', sends.explained],
          ['enqueue and drain (s)', Math.round(drainedMs / 100) / 10],
        ],
        failures: invariants.failures,
      };
    } finally {
      for (const worker of workers) worker.kill('SIGKILL');
      await Promise.all(workers.map((w) => w.exited));
      await pool.end().catch(() => undefined);
      await receiver.close();
      postgres.destroy();
    }
  },
};
