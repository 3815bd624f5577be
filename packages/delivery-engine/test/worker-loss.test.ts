import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDeliveryEngine, sqliteDeliveryStore, WORKER_LOST_OUTCOME } from '../src/index.js';
import { bodyFor, pause } from './support/attempts.js';
import { startReceiver, testCertificate } from './support/receiver.js';
import { spawnWorker } from './support/spawn-worker.js';

const dir = mkdtempSync(join(tmpdir(), 'kyc-worker-loss-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a delivery that keeps killing its worker', () => {
  it('is sent maxWorkerLosses times, then recorded as worker_lost without another send', {
    timeout: 90_000,
  }, async () => {
    // The receiver never answers this event: each worker is killed while it waits.
    const receiver = await startReceiver(() => 'hang');
    const path = join(dir, 'loss.db');
    const producer = sqliteDeliveryStore({ path });
    const { id } = await createDeliveryEngine({ store: producer, allowPrivateNetworks: ['127.0.0.0/8'] }).enqueue({
      url: receiver.url,
      body: bodyFor('poison'),
    });
    // Each worker owns the file in turn; this process only reads it from here.
    await producer.close();
    const store = sqliteDeliveryStore({ path });
    const enqueuer = createDeliveryEngine({ store, allowPrivateNetworks: ['127.0.0.0/8'] });
    const config = {
      store: 'sqlite',
      path,
      ca: (await testCertificate()).cert,
      concurrency: 4,
      // The deadline leaves a loaded machine seconds to deliver each kill before the attempt
      // could end on its own; the lease just outlasts it, so the test waits little between kills.
      leaseMs: 3500,
      deadlineMs: 3000,
      maxWorkerLosses: 3,
    };
    try {
      for (let loss = 1; loss <= 3; loss++) {
        const worker = spawnWorker(config);
        await worker.started;
        await receiver.waitFor(loss);
        // The owner records its attempts in flight within IN_FLIGHT_RECORD_DELAY_MS (20 ms) of a
        // claim; an attempt that kills its process sooner than that is resent without a count.
        await pause(100);
        worker.child.kill('SIGKILL');
        expect(await worker.exited).toBe('SIGKILL');
      }
      expect(receiver.requests).toHaveLength(3);
      expect((await enqueuer.getDelivery(id))?.attemptLog).toEqual([]);

      // The next worker takes the delivery when the third lease ends and, instead of a fourth
      // blind send, records a failed attempt that says why; the schedule goes on from there.
      const last = spawnWorker(config);
      await last.started;
      let record = await enqueuer.getDelivery(id);
      for (let i = 0; i < 200 && (record?.attemptLog.length ?? 0) === 0; i++) {
        await pause(50);
        record = await enqueuer.getDelivery(id);
      }
      last.child.kill('SIGKILL');
      await last.exited;
      expect(record).toMatchObject({ state: 'pending', attempts: 1, lastOutcome: WORKER_LOST_OUTCOME });
      expect(record?.attemptLog[0]?.errorMessage).toMatch(/lease lost 3 times/);
      expect(receiver.requests).toHaveLength(3);
    } finally {
      await receiver.close();
      await store.close();
    }
  });
});
