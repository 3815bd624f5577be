import { WebhookError } from '../webhook-error.js';
import { type ClaimResult, type IdempotencyStore, newClaimToken } from './store.js';

/** An `ioredis` client (or anything with its `call`). */
export interface IoRedisLikeClient {
  call(command: string, ...args: string[]): Promise<unknown>;
}

/** A `redis` (node-redis) client (or anything with its `sendCommand`). */
export interface NodeRedisLikeClient {
  sendCommand(args: string[]): Promise<unknown>;
}

/** Either client; no Redis library is a dependency of this package. */
export type RedisLikeClient = IoRedisLikeClient | NodeRedisLikeClient;

/** Options of {@link redisIdempotencyStore}. */
export interface RedisIdempotencyStoreOptions {
  /** Prefix of every key this store writes. Default `kyc:webhook:idem:`. */
  readonly keyPrefix?: string;
}

// Values: "c:<token>" while claimed (PX = lease, renewed by EXTEND), "d" once done (PX = TTL). One script per
// transition keeps each of them atomic without MULTI/WATCH round trips.
const CLAIM = `
local value = redis.call('GET', KEYS[1])
if not value then
  redis.call('SET', KEYS[1], 'c:' .. ARGV[1], 'PX', ARGV[2])
  return {1, 0}
end
if value == 'd' then return {2, 0} end
return {3, redis.call('PTTL', KEYS[1])}`;

const COMPLETE = `
local value = redis.call('GET', KEYS[1])
if value and value ~= 'c:' .. ARGV[1] then return 0 end
redis.call('SET', KEYS[1], 'd', 'PX', ARGV[2])
return 1`;

const RELEASE = `
if redis.call('GET', KEYS[1]) == 'c:' .. ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

const EXTEND = `
if redis.call('GET', KEYS[1]) == 'c:' .. ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

const DEFAULT_PREFIX = 'kyc:webhook:idem:';

function commandOf(client: RedisLikeClient): (args: string[]) => Promise<unknown> {
  // ioredis also has a sendCommand, but it takes a Command object: try its `call` first.
  if ('call' in client && typeof client.call === 'function') {
    return ([command = '', ...rest]) => client.call(command, ...rest);
  }
  if ('sendCommand' in client && typeof client.sendCommand === 'function') return (args) => client.sendCommand(args);
  throw new WebhookError(
    'invalid_option',
    'redisIdempotencyStore: pass an ioredis client (with call) or a redis/node-redis client (with sendCommand).',
  );
}

function eval3(send: (args: string[]) => Promise<unknown>, script: string, key: string, ...args: string[]) {
  return send(['EVAL', script, '1', key, ...args]);
}

/**
 * An idempotency store in Redis, shared by every replica. Each transition is one Lua script,
 * so a claim is atomic however many receivers race for it; leases and TTLs are Redis
 * expirations. Works with `ioredis` and with `redis` (node-redis) clients.
 *
 * @example
 * import { Redis } from 'ioredis';
 * const store = redisIdempotencyStore(new Redis(process.env.REDIS_URL));
 * // or: const store = redisIdempotencyStore(await createClient({ url }).connect());
 */
export function redisIdempotencyStore(
  client: RedisLikeClient,
  options: RedisIdempotencyStoreOptions = {},
): IdempotencyStore {
  if (typeof client !== 'object' || client === null) {
    throw new WebhookError('invalid_option', 'redisIdempotencyStore: client must be a Redis client.');
  }
  const send = commandOf(client);
  const prefix = options.keyPrefix ?? DEFAULT_PREFIX;
  const ms = (value: number) => String(Math.max(1, Math.ceil(value)));

  return {
    async claim(key, { leaseMs }): Promise<ClaimResult> {
      const token = newClaimToken();
      const reply = await eval3(send, CLAIM, prefix + key, token, ms(leaseMs));
      const [outcome, pttl] = Array.isArray(reply) ? reply.map(Number) : [];
      if (outcome === 1) return { outcome: 'claimed', token };
      if (outcome === 2) return { outcome: 'completed' };
      if (outcome === 3) return { outcome: 'in_progress', retryAfterMs: Math.max(0, pttl ?? 0) };
      throw new Error('redisIdempotencyStore: unexpected reply to the claim script');
    },
    async complete(key, token, { ttlMs }) {
      return Number(await eval3(send, COMPLETE, prefix + key, token, ms(ttlMs))) === 1;
    },
    async release(key, token) {
      return Number(await eval3(send, RELEASE, prefix + key, token)) === 1;
    },
    async extend(key, token, { leaseMs }) {
      return Number(await eval3(send, EXTEND, prefix + key, token, ms(leaseMs))) === 1;
    },
  };
}
