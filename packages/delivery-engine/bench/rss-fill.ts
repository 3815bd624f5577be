/**
 * Fills a SQLite file with deliveries waiting for a retry, the way the engine leaves
 * them: stored, claimed, a failed attempt recorded (with a log row) and the next attempt due in
 * 15 minutes. Runs in a process of its own, so the memory the filling takes is not charged to
 * the engine measured over the file afterwards. `node --import tsx bench/rss-fill.ts <path> <count>`.
 */
import { sqliteDeliveryStore } from '@kyc/delivery-engine';

const BATCH = 1000;
const path = process.argv[2] ?? '';
const WAITING = Number(process.argv[3] ?? 100_000);
const store = sqliteDeliveryStore({ path });
const now = Date.now();
const retryAt = now + 15 * 60 * 1000;
const body = JSON.stringify({ sessionId: 'rss', status: 'PENDING' });
for (let start = 0; start < WAITING; start += BATCH) {
  await Promise.all(
    Array.from({ length: BATCH }, (_, i) =>
      store.insert({
        id: `rss-${start + i}`,
        url: 'https://127.0.0.1:9/hook',
        origin: 'https://127.0.0.1:9',
        authKey: 'rss-bench-key-0123456789',
        signingSecret: undefined,
        body,
        createdAt: now,
      }),
    ),
  );
  const claims = await store.claim({ now, limit: BATCH, leaseMs: 45_000, excludeOrigins: [] });
  await Promise.all(
    claims.map((claim) =>
      store.complete(
        claim,
        {
          attempt: 1,
          round: 1,
          startedAt: now,
          requestHeaders: { authorization: 'Bearer [redacted]' },
          status: undefined,
          outcome: 'connect_error',
          dialedAddress: '127.0.0.1',
          latencyMs: 1,
          responseSnippet: undefined,
          errorMessage: 'connect ECONNREFUSED 127.0.0.1:9',
          unrecordedSends: 0,
        },
        { state: 'pending', nextAttemptAt: retryAt, finishedAt: now },
      ),
    ),
  );
}
if ((await store.nextDueAt([])) !== retryAt) throw new Error('the deliveries are not waiting for a retry');
await store.close();
