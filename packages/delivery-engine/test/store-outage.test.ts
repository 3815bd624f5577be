import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createDeliveryEngine, sqliteDeliveryStore } from '../src/index.js';
import { bodyFor, pause } from './support/attempts.js';
import { loopbackOptions, startReceiver } from './support/receiver.js';
import { createTestTelemetry, pointValue } from './support/telemetry.js';

const dir = mkdtempSync(join(tmpdir(), 'kyc-store-outage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > ms) throw new Error(`timed out waiting until ${what}`);
    await pause(10);
  }
}

describe('a SQLite store that cannot write for a while', () => {
  it('holds the answers that arrive, claims nothing meanwhile, says so, and records each answer once afterwards', {
    timeout: 60_000,
  }, async () => {
    const path = join(dir, 'blocked.db');
    const telemetry = createTestTelemetry();
    // Each answer takes 300 ms, so attempts are in flight when the file stops taking writes.
    const receiver = await startReceiver(() => ({ status: 200, delayMs: 300 }));
    const store = sqliteDeliveryStore({ path, busyTimeoutMs: 20 });
    const engine = createDeliveryEngine({
      store,
      ...(await loopbackOptions()),
      concurrency: 4,
      telemetry: { tracerProvider: telemetry.tracerProvider, meterProvider: telemetry.meterProvider },
    });
    const blocker = new Database(path);
    try {
      await engine.start();
      const ids = await Promise.all(
        Array.from(
          { length: 8 },
          async (_, i) => (await engine.enqueue({ url: receiver.url, body: bodyFor(`o-${i}`) })).id,
        ),
      );
      await until(() => receiver.requests.length >= 4, 'four attempts are in flight');
      // Another connection takes the write lock and keeps it: the owner's commits fail (SQLITE_BUSY).
      blocker.exec('BEGIN IMMEDIATE');
      await until(() => engine.loopHealth().store?.writable === false, 'the store knows it cannot write');
      // Until its first commit failed, the owner may still hand out rows it had already listed as
      // in flight (its runway): at most the other four. Once it knows, it sends nothing new (a
      // send begun just before takes a moment to reach the receiver).
      await pause(200);
      const sentWhenKnown = receiver.requests.length;
      expect(sentWhenKnown).toBeLessThanOrEqual(8);
      await until(() => engine.loopHealth().store?.heldResults === sentWhenKnown, 'every answer is held');
      expect(engine.loopHealth().store).toMatchObject({ writable: false, fenced: false });
      expect(pointValue(await telemetry.points('kyc.webhook.store.writable'), { state: 'outage' })).toBe(0);
      expect(pointValue(await telemetry.points('kyc.webhook.store.held_results'))).toBe(sentWhenKnown);
      // An enqueue now is refused (not stored), and nothing new is sent while the store cannot write.
      await expect(engine.enqueue({ url: receiver.url, body: bodyFor('refused') })).rejects.toMatchObject({
        code: 'store_error',
      });
      await pause(500);
      expect(receiver.requests).toHaveLength(sentWhenKnown);

      blocker.exec('COMMIT');
      await until(() => ids.every((id) => receiver.counts.get(id) === 1), 'every event arrived');
      await until(() => engine.loopHealth().store?.writable === true, 'the store writes again');
      expect(pointValue(await telemetry.points('kyc.webhook.store.writable'), { state: 'ok' })).toBe(1);
      await engine.stop();
      for (const id of ids) {
        const record = await store.get(id);
        expect(record?.state, id).toBe('delivered');
        // One attempt each, and one request each: the held answers were recorded, not sent again.
        expect(
          record?.attemptLog.map((a) => [a.outcome, a.unrecordedSends]),
          id,
        ).toEqual([['delivered', 0]]);
        expect(receiver.counts.get(id), id).toBe(1);
      }
    } finally {
      if (blocker.inTransaction) blocker.exec('ROLLBACK');
      blocker.close();
      await engine.stop();
      await store.close();
      await receiver.close();
      await telemetry.shutdown();
    }
  });
});
