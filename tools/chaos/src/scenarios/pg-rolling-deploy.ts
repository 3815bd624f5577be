import pg from 'pg';
import { CHAOS_HOST, CHAOS_KEY, startChaosReceiver } from '../support/chaos-receiver.js';
import { type SourcePatch, spawnPatchedScript } from '../support/patched-script.js';
import { approvedEvent, checkSentOnce, produceAndDrain } from '../support/pg-run.js';
import { startPrivatePostgres } from '../support/private-postgres.js';
import { Invariants, type RunContext, type Scenario } from '../support/scenario.js';
import { type ChildScript, spawnScript } from '../support/spawn-script.js';

const FACTOR = 1000;
const NEW_WORKERS = ['127.0.0.2', '127.0.0.3'];
const OLD_WORKER = '127.0.0.4';

/**
 * The broken build: the release before the fix, where the database did not refuse the old
 * release's claims and leases were read in both forms (`greatest(lease_until, next_attempt_at)`).
 */
const LEGACY_CLAIM: readonly SourcePatch[] = [
  { file: 'store/postgres/refuse-old-claims.ts', search: 'BEFORE UPDATE OF due_at', replace: 'BEFORE TRUNCATE' },
  {
    file: 'store/postgres/statements.ts',
    search: "const LEASE_END = 'lease_until';",
    replace: "const LEASE_END = 'greatest(lease_until, next_attempt_at)';",
  },
];

export const pgRollingDeploy: Scenario = {
  name: 'pg-rolling-deploy',
  title: 'Postgres rolling deploy: a worker of the release before schema v3 keeps claiming beside 2 new workers',
  breaks: ['legacy-claim'],
  // Every event must be delivered at its first attempt within a 1 s deadline, which a busy
  // neighbour can push an answer past.
  alone: true,
  async run(context: RunContext) {
    const events = context.mode === 'full' ? 6000 : 800;
    const invariants = new Invariants();
    const postgres = await startPrivatePostgres(context.dir);
    const receiver = await startChaosReceiver({
      random: context.random,
      faults: { reset: 0, resetMidBody: 0, hang: 0, error: 0 },
      hosts: [...NEW_WORKERS, OLD_WORKER],
    });
    const pool = new pg.Pool({ connectionString: postgres.url, max: 8 });
    const children: ChildScript[] = [];
    try {
      const anchor = Date.now();
      // The new release starts and migrates (to schema version 4) while the old worker runs.
      for (const address of NEW_WORKERS) {
        const config = {
          store: 'postgres',
          postgresUrl: postgres.url,
          ca: receiver.certificate.cert,
          concurrency: 16,
          timeScale: { factor: FACTOR, anchor },
          leaseMs: 1500 * FACTOR,
          deadlineMs: 1000,
          maxWorkerLosses: 3,
          authKey: CHAOS_KEY,
          url: '',
          failUrl: '',
          maxLifeMs: 600_000,
          resolveTo: address,
        };
        const worker =
          context.breakWith === 'legacy-claim'
            ? await spawnPatchedScript('engine-worker', config, LEGACY_CLAIM)
            : spawnScript('engine-worker', config);
        children.push(worker);
        await worker.waitFor('started');
      }
      const took = new Set<string>();
      let refusals = 0;
      const refusalCodes = new Set<string>();
      const old = spawnScript(
        'previous-release-worker',
        {
          postgresUrl: postgres.url,
          ca: receiver.certificate.cert,
          host: CHAOS_HOST,
          port: receiver.port,
          address: OLD_WORKER,
          authKey: CHAOS_KEY,
          leaseMs: 1500 * FACTOR,
          timeScale: { factor: FACTOR, anchor },
        },
        (line) => {
          const [word, value = ''] = line.split(' ');
          if (word === 'took') took.add(value);
          if (word === 'refused') {
            refusals++;
            refusalCodes.add(value);
          }
        },
      );
      children.push(old);
      await old.waitFor('started');

      const { acked, records, drainedMs } = await produceAndDrain({
        pool,
        events,
        event: (n) => approvedEvent(`roll-${n}`, `https://${CHAOS_HOST}:${receiver.port}/hook`),
        pauseMs: 10,
        drainPolls: 120,
        workers: children,
        invariants,
      });
      for (const record of records) {
        invariants.check(
          record.state === 'delivered' && record.attemptLog.length === 1,
          'an event not delivered with exactly one recorded attempt',
          () => `${record.id}: ${record.state}, ${record.attemptLog.map((a) => a.outcome).join(',')}`,
        );
      }
      invariants.check(took.size === 0, 'the old worker claimed deliveries', () => [...took].slice(0, 5).join(', '));
      invariants.check(refusals > 0, 'the old worker was never refused: did it run?');
      const sends = checkSentOnce(records, receiver.receipts, invariants);
      const byOld = receiver.receipts.filter((r) => r.localAddress === OLD_WORKER).length;
      return {
        figures: [
          ['new worker processes (schema v6) / old ones (before v3)', `${NEW_WORKERS.length} / 1`],
          ['events acknowledged', acked.length],
          ['lost', acked.length - records.length],
          ['delivered with one recorded attempt', records.filter((r) => r.attemptLog.length === 1).length],
          ["old worker's claims refused by the database", `${refusals} (SQLSTATE ${[...refusalCodes].join(', ')})`],
          ['deliveries the old worker took / sent', `${took.size} / ${byOld}`],
          ['requests the receiver saw', receiver.receipts.length],
          ['sent more than once', sends.sentMoreThanOnce.length],
          ['  of those explained by the attempt log', sends.explained],
          ['enqueue and drain (s)', Math.round(drainedMs / 100) / 10],
        ],
        failures: invariants.failures,
      };
    } finally {
      for (const child of children) child.kill('SIGKILL');
      await Promise.all(children.map((c) => c.exited));
      await pool.end().catch(() => undefined);
      await receiver.close();
      postgres.destroy();
    }
  },
};
