/**
 * A Redis idempotency store for receivers running as several replicas. Works with `ioredis`
 * and `redis` (node-redis) clients; neither is a dependency.
 *
 * @packageDocumentation
 */
export {
  type IoRedisLikeClient,
  type NodeRedisLikeClient,
  type RedisIdempotencyStoreOptions,
  type RedisLikeClient,
  redisIdempotencyStore,
} from './idempotency/redis.js';
export type { ClaimOptions, ClaimResult, CompleteOptions, IdempotencyStore } from './idempotency/store.js';
