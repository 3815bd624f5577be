import { POSTGRES_URL, postgresAvailable } from '@kyc/test-support';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createDeliveryEngine } from '../src/index.js';
import { postgresDeliveryStore } from '../src/postgres.js';
import { bodyFor } from './support/attempts.js';
import { TEST_SEALING_KEYS, uniqueSchema } from './support/postgres-schema.js';
import { startReceiver, TEST_HOST, testCertificate } from './support/receiver.js';
import { spawnWorker } from './support/spawn-worker.js';

const EVENTS = 300;
const CONCURRENCY = 8;
// Each worker resolves the receiver's name to its own loopback address, so every request the
// receiver sees (and every attempt-log row's dialed address) names the worker that sent it.
const VICTIM = '127.0.0.2';
const SURVIVORS = ['127.0.0.1', '127.0.0.3'];
const VICTIM_WARM_UP = 20;

describe.skipIf(!(await postgresAvailable()))('three workers sharing one Postgres', () => {
  it('deliver every event once, except attempts in flight in the worker killed mid-run', {
    timeout: 120_000,
  }, async () => {
    // Answers take 20–50 ms. The kill is armed once the victim itself has had VICTIM_WARM_UP
    // answers; from then on the receiver holds the victim's requests unanswered, so the kill always
    // lands with attempts in flight. Until then the survivors' answers take 150–250 ms, so the
    // backlog outlasts even a victim that a loaded machine schedules late (arming after a third of
    // all receipts once found the survivors had drained the queue while the victim sat idle, and
    // the test waited for a victim request that never came). That is a tenth of the 3 s deadline,
    // which a survivor's attempt must never reach: it would be sent twice.
    let armed = false;
    let victimAnswered = 0;
    let victimHolds: () => void = () => undefined;
    const victimHasRequestInFlight = new Promise<void>((resolve) => {
      victimHolds = resolve;
    });
    const quick = () => ({ status: 200, delayMs: 20 + Math.floor(Math.random() * 30) });
    const receiver = await startReceiver(
      (request) => {
        if (request.localAddress !== VICTIM)
          return armed ? quick() : { ...quick(), delayMs: 150 + Math.floor(Math.random() * 100) };
        if (armed) {
          victimHolds();
          return 'hang';
        }
        victimAnswered += 1;
        armed = victimAnswered >= VICTIM_WARM_UP;
        return quick();
      },
      { hosts: [...SURVIVORS, VICTIM] },
    );
    const url = `https://${TEST_HOST}:${receiver.port}/hook`;
    const schema = uniqueSchema('workers');
    const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 4 });
    const store = postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool, schema });
    const enqueuer = createDeliveryEngine({
      store,
      allowPrivateNetworks: ['127.0.0.0/8'],
      resolver: { resolve: async () => [{ address: '127.0.0.1', family: 4 }] },
    });
    try {
      await store.migrate();
      const config = {
        store: 'postgres',
        postgresUrl: POSTGRES_URL,
        schema,
        ca: (await testCertificate()).cert,
        concurrency: CONCURRENCY,
        leaseMs: 4000,
        deadlineMs: 3000,
        expectFinished: EVENTS,
      };
      const workers = [VICTIM, ...SURVIVORS].map((resolveTo) => spawnWorker({ ...config, resolveTo }));
      await Promise.all(workers.map((w) => w.started));
      // Every event commits in one outbox transaction: one NOTIFY wakes all three idle workers
      // and the backlog keeps each of them at full concurrency until the kill.
      const ids: string[] = [];
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        for (let i = 0; i < EVENTS; i++) {
          ids.push((await enqueuer.enqueue({ url, body: bodyFor(`pgw-${i}`) }, { transaction: client })).id);
        }
        await client.query('COMMIT');
      } finally {
        client.release();
      }
      await settlesWithin(victimHasRequestInFlight, 30_000, () => {
        const receipts = [...SURVIVORS, VICTIM].map(
          (address) => `${address}: ${receiver.requests.filter((r) => r.localAddress === address).length}`,
        );
        return `the victim had no request held within 30 s (receipts ${receipts.join(', ')}; victim stderr: ${workers[0]?.stderr()})`;
      });
      const [victim, ...survivors] = workers;
      victim?.child.kill('SIGKILL');
      const receivedAtKill = receiver.requests.length;
      expect(await victim?.exited).toBe('SIGKILL');
      for (const survivor of survivors) expect(await survivor.exited, survivor.stderr()).toBe(0);
      expect(receivedAtKill).toBeLessThan(EVENTS);

      let interrupted = 0;
      for (const id of ids) {
        const record = await enqueuer.getDelivery(id);
        expect(record?.state, id).toBe('delivered');
        expect(
          record?.attemptLog.filter((a) => a.outcome === 'delivered'),
          id,
        ).toHaveLength(1);
        const seen = receiver.requests.filter((r) => r.headers['webhook-id'] === id);
        expect(seen.length, id).toBeGreaterThanOrEqual(1);
        const log = record?.attemptLog ?? [];
        const from = (address: string) => ({
          received: seen.filter((r) => r.localAddress === address).length,
          logged: log.filter((a) => a.dialedAddress === address).length,
        });
        // A survivor's every receipt is in the attempt log: survivors never send twice.
        for (const address of SURVIVORS)
          expect(from(address).received, `${id} via ${address}`).toBe(from(address).logged);
        // The victim's receipts without a log row are the attempts its death interrupted.
        const victimSide = from(VICTIM);
        expect(victimSide.received).toBeGreaterThanOrEqual(victimSide.logged);
        interrupted += victimSide.received - victimSide.logged;
      }
      // The kill landed while the victim had requests held at the receiver, and each was sent again
      // by a survivor once its lease ended. At most: those in flight plus those sent whose result
      // was still being written (a slot is freed before the write), 2 × its concurrency.
      expect(interrupted).toBeGreaterThanOrEqual(1);
      expect(interrupted).toBeLessThanOrEqual(2 * CONCURRENCY);
      expect(receiver.requests.length - EVENTS).toBe(interrupted);
      console.info(
        `postgres workers: ${EVENTS} events, 1 of 3 killed after ${receivedAtKill} receipts, ${interrupted} interrupted attempts sent again`,
      );
    } finally {
      await receiver.close();
      await pool.query(`DROP SCHEMA ${schema} CASCADE`);
      await pool.end();
    }
  });
});

/** Waits for `promise`, failing with `explain()` after `ms` instead of running into the test's timeout. */
async function settlesWithin(promise: Promise<void>, ms: number, explain: () => string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(explain())), ms);
  });
  try {
    await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
