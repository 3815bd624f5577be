import { sampleStatusWebhook } from '@kyc/contracts';
import { POSTGRES_URL, postgresAvailable, REDIS_URL, redisAvailable } from '@kyc/test-support';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { createWebhookReceiver, type IdempotencyStore } from '../src/index.js';
import { createIdempotencyTable, postgresIdempotencyStore } from '../src/postgres.js';
import { redisIdempotencyStore } from '../src/redis.js';
import { requestInit } from './support/fetch-send.js';
import { AUTH_KEY, authorized, deferred } from './support/receiver-table.js';

/**
 * Two receivers (two replicas) over one shared store, 50 identical deliveries split between them.
 * The one handler that runs holds on until the 49 others were answered, so every one of them
 * met the claim in progress: the race is real on any machine, however slow.
 */
async function fiftyDeliveriesOverTwoReplicas(stores: readonly [IdempotencyStore, IdempotencyStore]) {
  let runs = 0;
  let answered = 0;
  const othersAnswered = deferred();
  const onEvent = async () => {
    runs++;
    // Bounded, so a bug that never answers the others fails the assertions instead of hanging.
    await Promise.race([othersAnswered.promise, new Promise((resolve) => setTimeout(resolve, 15_000))]);
  };
  // A one-minute TTL so the shared Redis is not left holding test keys for the 7-day default.
  const receivers = stores.map((idempotencyStore) =>
    createWebhookReceiver({ authKeys: AUTH_KEY, idempotencyStore, onEvent, idempotencyTtlMs: 60_000, logger: {} }),
  );
  const body = { ...sampleStatusWebhook, sessionId: `sess_shared_${process.pid}_${Date.now()}` };
  const statuses = await Promise.all(
    Array.from({ length: 50 }, async (_, index) => {
      const receiver = receivers[index % 2];
      if (receiver === undefined) throw new Error('no receiver');
      const { status } = await receiver.handle(new Request('http://r.test/', requestInit(authorized(body))));
      if (++answered === 49) othersAnswered.resolve();
      return status;
    }),
  );
  const after = await receivers[1]?.handle(new Request('http://r.test/', requestInit(authorized(body))));
  return { runs, statuses, after: after?.status };
}

describe.skipIf(!(await redisAvailable()))('two receivers sharing a real Redis store', () => {
  it('run the handler once for 50 concurrent identical deliveries (one replica on ioredis, one on node-redis)', async () => {
    const io = new Redis(REDIS_URL);
    const node = await createClient({ url: REDIS_URL }).connect();
    const keyPrefix = `kyc:test:shared:${process.pid}:`;
    try {
      const { runs, statuses, after } = await fiftyDeliveriesOverTwoReplicas([
        redisIdempotencyStore(io, { keyPrefix }),
        redisIdempotencyStore(node, { keyPrefix }),
      ]);
      expect(runs).toBe(1);
      // 409 + Retry-After for all 49 that met the run in progress, 200 for the run itself.
      expect([...statuses].sort()).toEqual([200, ...Array.from({ length: 49 }, () => 409)]);
      expect(after).toBe(200);
    } finally {
      io.disconnect();
      node.destroy();
    }
  });
});

describe.skipIf(!(await postgresAvailable()))('two receivers sharing a real Postgres store', () => {
  it('run the handler once for 50 concurrent identical deliveries', async () => {
    const pools = [
      new pg.Pool({ connectionString: POSTGRES_URL }),
      new pg.Pool({ connectionString: POSTGRES_URL }),
    ] as const;
    const tableName = `kyc_receiver_shared_${process.pid}`;
    try {
      await createIdempotencyTable(pools[0], { tableName });
      const { runs, statuses, after } = await fiftyDeliveriesOverTwoReplicas([
        postgresIdempotencyStore(pools[0], { tableName }),
        postgresIdempotencyStore(pools[1], { tableName }),
      ]);
      expect(runs).toBe(1);
      // 409 + Retry-After for all 49 that met the run in progress, 200 for the run itself.
      expect([...statuses].sort()).toEqual([200, ...Array.from({ length: 49 }, () => 409)]);
      expect(after).toBe(200);
    } finally {
      await pools[0].query(`DROP TABLE IF EXISTS ${tableName}`);
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });
});
