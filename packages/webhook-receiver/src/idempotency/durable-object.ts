import { WebhookError } from '../webhook-error.js';
import type { IdempotencyOperation, IdempotencyReply } from './durable-object-protocol.js';
import type { ClaimResult, IdempotencyStore } from './store.js';

/** The part of a Durable Object stub the store uses. */
export interface DurableObjectStubLike {
  fetch(input: string, init?: RequestInit): Promise<Response>;
}

/** The part of a `DurableObjectNamespace` binding the store uses (no dependency on workers-types). */
export interface DurableObjectNamespaceLike<Id = unknown> {
  idFromName(name: string): Id;
  get(id: Id): DurableObjectStubLike;
}

/** Options of {@link durableObjectIdempotencyStore}. */
export interface DurableObjectIdempotencyStoreOptions {
  /** Put before every key, to keep several receivers on one namespace apart. Default `kyc:`. */
  readonly keyPrefix?: string;
}

function isClaimResult(reply: IdempotencyReply): reply is ClaimResult {
  return 'outcome' in reply;
}

/**
 * An idempotency store for Cloudflare Workers, on Durable Objects: every isolate and every
 * location of your Worker shares it, and each claim is atomic (one object per key, see
 * {@link KycIdempotencyObject}). The memory store is per isolate, and Workers KV is eventually
 * consistent with no compare-and-set, so neither can keep a duplicate from running twice.
 *
 * @throws {@link index.WebhookError | WebhookError} `invalid_option` when `namespace` is not a Durable Object namespace binding.
 * @example
 * // worker.ts: export the object and bind it in wrangler.jsonc:
 * // "durable_objects": { "bindings": [{ "name": "KYC_IDEMPOTENCY", "class_name": "KycIdempotencyObject" }] },
 * // "migrations": [{ "tag": "v1", "new_sqlite_classes": ["KycIdempotencyObject"] }]
 * export { KycIdempotencyObject } from '@kyc/webhook-receiver/cloudflare';
 * const store = durableObjectIdempotencyStore(env.KYC_IDEMPOTENCY);
 */
export function durableObjectIdempotencyStore<Id>(
  namespace: DurableObjectNamespaceLike<Id>,
  options: DurableObjectIdempotencyStoreOptions = {},
): IdempotencyStore {
  if (typeof namespace?.idFromName !== 'function' || typeof namespace.get !== 'function') {
    throw new WebhookError(
      'invalid_option',
      'durableObjectIdempotencyStore: pass the Durable Object namespace binding (env.KYC_IDEMPOTENCY), bound to KycIdempotencyObject.',
    );
  }
  const prefix = options.keyPrefix ?? 'kyc:';

  async function call(key: string, operation: IdempotencyOperation): Promise<IdempotencyReply> {
    const stub = namespace.get(namespace.idFromName(prefix + key));
    const response = await stub.fetch('https://kyc-idempotency.invalid/', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(operation),
    });
    // Thrown errors make the receiver answer 503, so the sender retries.
    if (!response.ok) throw new Error(`KycIdempotencyObject answered ${response.status} to ${operation.op}`);
    return (await response.json()) as IdempotencyReply;
  }
  const done = async (reply: Promise<IdempotencyReply>) => {
    const value = await reply;
    return 'done' in value && value.done === true;
  };

  return {
    async claim(key, { leaseMs }) {
      const reply = await call(key, { op: 'claim', leaseMs });
      if (!isClaimResult(reply)) throw new Error('KycIdempotencyObject answered a claim with something else');
      return reply;
    },
    complete: (key, token, { ttlMs }) => done(call(key, { op: 'complete', token, ttlMs })),
    extend: (key, token, { leaseMs }) => done(call(key, { op: 'extend', token, leaseMs })),
    release: (key, token) => done(call(key, { op: 'release', token })),
  };
}
