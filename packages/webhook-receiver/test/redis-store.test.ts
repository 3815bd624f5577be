import { REDIS_URL, redisAvailable } from '@kyc/test-support';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { redisIdempotencyStore } from '../src/redis.js';
import { storeConformanceSuite } from './support/store-conformance.js';

const prefix = `kyc:test:receiver:${process.pid}:`;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe.skipIf(!(await redisAvailable()))('Redis store (real server)', () => {
  // Redis keeps time itself, so leases and TTLs are waited out (a few hundred ms in all).
  storeConformanceSuite('redis (ioredis)', async () => {
    const a = new Redis(REDIS_URL);
    const b = new Redis(REDIS_URL);
    return {
      store: redisIdempotencyStore(a, { keyPrefix: prefix }),
      replica: redisIdempotencyStore(b, { keyPrefix: prefix }),
      advance: sleep,
      close: async () => {
        a.disconnect();
        b.disconnect();
      },
    };
  });

  storeConformanceSuite('redis (node-redis)', async () => {
    const a = await createClient({ url: REDIS_URL }).connect();
    const b = await createClient({ url: REDIS_URL }).connect();
    return {
      store: redisIdempotencyStore(a, { keyPrefix: prefix }),
      replica: redisIdempotencyStore(b, { keyPrefix: prefix }),
      advance: sleep,
      close: async () => {
        a.destroy();
        b.destroy();
      },
    };
  });

  it('an ioredis and a node-redis replica see each other’s claims', async () => {
    const io = new Redis(REDIS_URL);
    const node = await createClient({ url: REDIS_URL }).connect();
    try {
      const key = `mixed:${Date.now()}`;
      const claim = await redisIdempotencyStore(io, { keyPrefix: prefix }).claim(key, { leaseMs: 10_000 });
      expect(claim.outcome).toBe('claimed');
      const other = redisIdempotencyStore(node, { keyPrefix: prefix });
      expect((await other.claim(key, { leaseMs: 10_000 })).outcome).toBe('in_progress');
    } finally {
      io.disconnect();
      node.destroy();
    }
  });

  it('refuses something that is not a Redis client', () => {
    expect(() => redisIdempotencyStore({} as never)).toThrow(/ioredis client/);
  });
});
