import { WEBHOOK_MAX_ATTEMPTS } from '@kyc/contracts';
import { postgresDeliveryStore } from '@kyc/delivery-engine/postgres';
import pg from 'pg';
import { CHAOS_HOST, CHAOS_KEY, startChaosReceiver } from '../support/chaos-receiver.js';
import { startNulAnswerServer } from '../support/nul-answer-server.js';
import { type SourcePatch, spawnPatchedScript } from '../support/patched-script.js';
import { approvedEvent, checkSentOnce, produceAndDrain } from '../support/pg-run.js';
import { startPrivatePostgres } from '../support/private-postgres.js';
import { Invariants, type RunContext, type Scenario } from '../support/scenario.js';
import { CHAOS_SEALING_KEYS } from '../support/sealing-keys.js';
import { type ChildScript, spawnScript } from '../support/spawn-script.js';

const FACTOR = 1000;
const ADDRESSES = ['127.0.0.2', '127.0.0.3'];
/** Every n-th event goes to the company whose endpoint answers with a NUL byte. */
const BAD_EVERY = 10;

/** The broken builds: what issue 32 found (neither defence), and the row fallback alone. */
const BREAKS: Record<string, readonly SourcePatch[]> = {
  'no-row-fallback': [
    { file: 'store/storable-text.ts', search: 'return text.replaceAll', replace: 'return text; text.replaceAll' },
    { file: 'store/postgres/grouped-statement.ts', search: 'options.retryEachOn?.(error) === true', replace: 'false' },
  ],
  'no-sanitise': [
    { file: 'store/storable-text.ts', search: 'return text.replaceAll', replace: 'return text; text.replaceAll' },
  ],
};

export const pgNulByte: Scenario = {
  name: 'pg-nul-byte',
  title: "Postgres, 2 workers: one company's endpoint answers 500 with a NUL byte (U+0000) beside a healthy company",
  breaks: Object.keys(BREAKS),
  // Every healthy event must be delivered at its first attempt within a 1 s deadline: a scenario
  // beside it (a Postgres restart, say) pushed a few past it in a trial of two at a time.
  alone: true,
  async run(context: RunContext) {
    const events = context.mode === 'full' ? 8000 : 1000;
    const invariants = new Invariants();
    const postgres = await startPrivatePostgres(context.dir);
    const receiver = await startChaosReceiver({
      random: context.random,
      faults: { reset: 0, resetMidBody: 0, hang: 0, error: 0 },
      hosts: ADDRESSES,
    });
    const nul = await startNulAnswerServer(receiver.certificate);
    const pool = new pg.Pool({ connectionString: postgres.url, max: 8 });
    const workers: ChildScript[] = [];
    try {
      const store = postgresDeliveryStore({ pool, sealingKeys: CHAOS_SEALING_KEYS });
      await store.migrate();
      const config = (address: string) => ({
        store: 'postgres',
        postgresUrl: postgres.url,
        ca: receiver.certificate.cert,
        concurrency: 16,
        timeScale: { factor: FACTOR, anchor: Date.now() },
        leaseMs: 1500 * FACTOR,
        deadlineMs: 1000,
        maxWorkerLosses: 3,
        authKey: CHAOS_KEY,
        url: '',
        failUrl: '',
        maxLifeMs: 600_000,
        resolveTo: address,
      });
      const patches = context.breakWith === undefined ? undefined : BREAKS[context.breakWith];
      for (const address of ADDRESSES) {
        const worker =
          patches === undefined
            ? spawnScript('engine-worker', config(address))
            : await spawnPatchedScript('engine-worker', config(address), patches);
        workers.push(worker);
        await worker.waitFor('started');
      }

      // The producer: enqueues in bursts, so results of both companies finish together and
      // share the workers' grouped statements.
      const healthyUrl = `https://${CHAOS_HOST}:${receiver.port}/hook`;
      const bad = new Set<string>();
      // Drained: every healthy event delivered, every bad one failed after its 4 attempts
      // (1, 5 and 15 minutes of engine time between them).
      const { acked, records, drainedMs } = await produceAndDrain({
        pool,
        events,
        event: (n) => {
          const id = `nul-${n}`;
          const isBad = n % BAD_EVERY === BAD_EVERY - 1;
          if (isBad) bad.add(id);
          return approvedEvent(id, isBad ? nul.url : healthyUrl);
        },
        pauseMs: 10,
        drainPolls: 120,
        workers,
        invariants,
      });
      const healthyRecords = records.filter((r) => !bad.has(r.id));
      const badRecords = records.filter((r) => bad.has(r.id));
      for (const record of healthyRecords) {
        invariants.check(
          record.state === 'delivered' && record.attemptLog.length === 1,
          'a healthy event not delivered with exactly one recorded attempt',
          () => `${record.id}: ${record.state}, ${record.attemptLog.map((a) => a.outcome).join(',')}`,
        );
      }
      for (const record of badRecords) {
        invariants.check(
          record.state === 'failed' &&
            record.attemptLog.length === WEBHOOK_MAX_ATTEMPTS &&
            record.attemptLog.every((a) => a.outcome === 'server_error' && a.responseSnippet?.includes('\u2400')),
          `the NUL endpoint's event not failed after ${WEBHOOK_MAX_ATTEMPTS} recorded 500s (NUL shown as ␀)`,
          () => `${record.id}: ${record.state}, ${record.attemptLog.map((a) => a.outcome).join(',')}`,
        );
      }
      const healthySends = checkSentOnce(healthyRecords, receiver.receipts, invariants);
      const badSends = checkSentOnce(badRecords, nul.receipts, invariants);
      const explained = healthySends.explained + badSends.explained;
      return {
        figures: [
          ['worker processes', workers.length],
          ['events acknowledged', acked.length],
          ['  to the healthy company / to the NUL endpoint', `${healthyRecords.length} / ${badRecords.length}`],
          ['lost', acked.length - records.length],
          ['healthy events delivered with one attempt', healthyRecords.filter((r) => r.attemptLog.length === 1).length],
          [
            "NUL endpoint's 500s recorded, NUL shown as ␀",
            badRecords.flatMap((r) => r.attemptLog).filter((a) => a.responseSnippet?.includes('\u2400')).length,
          ],
          ['requests: healthy company / NUL endpoint', `${receiver.receipts.length} / ${nul.receipts.length}`],
          [
            'sent more than once (healthy / NUL endpoint)',
            `${healthySends.sentMoreThanOnce.length} / ${badSends.sentMoreThanOnce.length}`,
          ],
          ['  of those explained by the attempt log', explained],
          ['enqueue and drain (s)', Math.round(drainedMs / 100) / 10],
        ],
        failures: invariants.failures,
      };
    } finally {
      for (const worker of workers) worker.kill('SIGKILL');
      await Promise.all(workers.map((w) => w.exited));
      await pool.end().catch(() => undefined);
      await Promise.all([receiver.close(), nul.close()]);
      postgres.destroy();
    }
  },
};
