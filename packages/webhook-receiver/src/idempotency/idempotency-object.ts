import { type IdempotencyReply, isIdempotencyOperation } from './durable-object-protocol.js';
import { newClaimToken } from './store.js';

/** The part of a Durable Object's `state.storage` the object uses (no dependency on workers-types). */
export interface DurableObjectStorageLike {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
  deleteAll(): Promise<void>;
  setAlarm(scheduledTime: number): Promise<void>;
  deleteAlarm(): Promise<void>;
}

/** The part of a Durable Object's `state` the object uses. */
export interface DurableObjectStateLike {
  readonly storage: DurableObjectStorageLike;
}

interface Entry {
  readonly state: 'claimed' | 'completed';
  readonly token: string;
  readonly expiresAt: number;
}

const ENTRY = 'entry';

/**
 * The Durable Object behind {@link durableObjectIdempotencyStore}: one object per idempotency
 * key, holding that key's claim or completion. Export it from your Worker's main module and bind
 * it (see the store's example). A Durable Object runs one event at a time and its input gates
 * hold other events while a storage call is pending, so the read-decide-write of `claim` is
 * atomic without a transaction. An alarm deletes the entry when its lease or TTL ends.
 */
export class KycIdempotencyObject {
  readonly #storage: DurableObjectStorageLike;

  constructor(state: DurableObjectStateLike, _env?: unknown) {
    this.#storage = state.storage;
  }

  async fetch(request: Request): Promise<Response> {
    const operation: unknown = await request.json().catch(() => undefined);
    if (!isIdempotencyOperation(operation)) return new Response('invalid idempotency operation', { status: 400 });
    const at = Date.now();
    const stored = await this.#storage.get<Entry>(ENTRY);
    const live = stored !== undefined && stored.expiresAt > at ? stored : undefined;
    const owns = (token: string, entry: Entry | undefined) => entry?.state === 'claimed' && entry.token === token;
    let reply: IdempotencyReply;
    switch (operation.op) {
      case 'claim':
        if (live?.state === 'completed') reply = { outcome: 'completed' };
        else if (live !== undefined) reply = { outcome: 'in_progress', retryAfterMs: live.expiresAt - at };
        else {
          const token = newClaimToken();
          await this.#write({ state: 'claimed', token, expiresAt: at + operation.leaseMs });
          reply = { outcome: 'claimed', token };
        }
        break;
      case 'complete':
        // A claim whose lease ran out but that nobody took over still completes: the work was done.
        if (live !== undefined && !owns(operation.token, live)) reply = { done: false };
        else {
          await this.#write({ state: 'completed', token: operation.token, expiresAt: at + operation.ttlMs });
          reply = { done: true };
        }
        break;
      case 'extend':
        // `stored`, not `live`: a claim past its lease that nobody took over is still this token's to renew.
        if (!owns(operation.token, stored)) reply = { done: false };
        else {
          await this.#write({ state: 'claimed', token: operation.token, expiresAt: at + operation.leaseMs });
          reply = { done: true };
        }
        break;
      case 'release':
        if (!owns(operation.token, live)) reply = { done: false };
        else {
          await this.#forget();
          reply = { done: true };
        }
        break;
    }
    return Response.json(reply);
  }

  /** Deletes the entry once it expired (a renewal may have moved the expiry since the alarm was set). */
  async alarm(): Promise<void> {
    const entry = await this.#storage.get<Entry>(ENTRY);
    if (entry !== undefined && entry.expiresAt > Date.now()) await this.#storage.setAlarm(entry.expiresAt);
    else await this.#forget();
  }

  async #write(entry: Entry): Promise<void> {
    await this.#storage.put(ENTRY, entry);
    await this.#storage.setAlarm(entry.expiresAt);
  }

  async #forget(): Promise<void> {
    await this.#storage.deleteAlarm();
    await this.#storage.deleteAll();
  }
}
