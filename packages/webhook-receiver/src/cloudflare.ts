/**
 * Run the receiver on Cloudflare Workers with an idempotency store every isolate shares:
 * Durable Objects, one per idempotency key.
 *
 * @packageDocumentation
 */
export {
  type DurableObjectIdempotencyStoreOptions,
  type DurableObjectNamespaceLike,
  type DurableObjectStubLike,
  durableObjectIdempotencyStore,
} from './idempotency/durable-object.js';
export {
  type DurableObjectStateLike,
  type DurableObjectStorageLike,
  KycIdempotencyObject,
} from './idempotency/idempotency-object.js';
export type { ClaimOptions, ClaimResult, CompleteOptions, IdempotencyStore } from './idempotency/store.js';
