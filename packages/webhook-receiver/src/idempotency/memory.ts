import { WebhookError } from '../webhook-error.js';
import { withImmediateAnswers } from './immediate-store.js';
import { createSlotIndex } from './slot-index.js';
import type { ClaimOptions, ClaimResult, Clock, CompleteOptions, IdempotencyStore } from './store.js';

/** Options of {@link memoryIdempotencyStore}. */
export interface MemoryIdempotencyStoreOptions {
  /** How many keys are kept at most (the bound is never exceeded). Default 10 000. */
  readonly maxEntries?: number;
  /** Milliseconds since the epoch; default `Date.now`. */
  readonly now?: Clock;
}

const DEFAULT_MAX_ENTRIES = 10_000;
const COMPLETED: ClaimResult = /* @__PURE__ */ Object.freeze({ outcome: 'completed' });
// A slot's flags: its state, and whether it was used since the clock hand last passed it.
const FREE = 0;
const CLAIMED = 1;
const DONE = 2;
const STATE = 3;
const USED = 4;
/** Slots the clock hand looks at for a victim before it takes the oldest one (see `evict`). */
const SWEEP = 32;
/** Slots allocated at first; the arrays double up to `maxEntries` as keys arrive. */
const INITIAL_SLOTS = 1024;

/**
 * An idempotency store in this process's memory, holding `maxEntries` keys at most: the oldest
 * keys not seen again are forgotten first, live claims last. Right for one long-lived process; serverless
 * functions and several replicas need the Redis or Postgres store, because each instance has
 * its own memory.
 *
 * @example
 * const receiver = createWebhookReceiver({ authKeys, onEvent, idempotencyStore: memoryIdempotencyStore({ maxEntries: 50_000 }) });
 */
export function memoryIdempotencyStore(options: MemoryIdempotencyStoreOptions = {}): IdempotencyStore {
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  if (!Number.isInteger(maxEntries) || maxEntries < 2) {
    throw new WebhookError('invalid_option', 'memoryIdempotencyStore: maxEntries must be an integer of at least 2.');
  }
  const now = options.now ?? Date.now;
  // A ring of slots swept by a clock hand (CLOCK, second chance), found by key through a hash
  // table over typed arrays: a remembered key costs its string and 37 to 45 bytes, and an event
  // allocates no entry object. Every operation is O(1), a flood of live claims included: the
  // hand looks at SWEEP slots at most (two generations of Maps, before, copied their live claims
  // over on each rotation, and rotated on every claim once full of them).
  let capacity = Math.min(maxEntries, INITIAL_SLOTS);
  const index = createSlotIndex(capacity);
  let flags = new Uint8Array(capacity);
  let expiresAt = new Float64Array(capacity);
  // Tokens only have to differ between claims of this one process: a counter is enough and cheap.
  let tokens = new Float64Array(capacity);
  let used = 0; // slots handed out so far, in order, before the hand starts to recycle them
  let hand = 0;
  let sequence = 0;
  const freed: number[] = []; // released slots, reused first

  function grow(): void {
    capacity = Math.min(maxEntries, capacity * 2);
    const oldFlags = flags;
    const oldExpiresAt = expiresAt;
    const oldTokens = tokens;
    flags = new Uint8Array(capacity);
    flags.set(oldFlags);
    expiresAt = new Float64Array(capacity);
    expiresAt.set(oldExpiresAt);
    tokens = new Float64Array(capacity);
    tokens.set(oldTokens);
    index.grow(capacity);
  }

  /**
   * The slot to recycle: the first the hand reaches that was not used since it last passed and
   * holds no live claim. After SWEEP slots (every one used or live: a flood of claims) the oldest
   * of them goes, so the bound holds and no operation walks the ring.
   */
  function evict(at: number): number {
    let victim = hand;
    for (let step = 0; step < SWEEP; step++) {
      const slot = (hand + step) % maxEntries;
      const flag = flags[slot] ?? FREE;
      if ((flag & USED) !== 0) flags[slot] = flag & STATE;
      else if ((flag & STATE) !== CLAIMED || (expiresAt[slot] ?? 0) <= at) {
        victim = slot;
        break;
      }
    }
    hand = (victim + 1) % maxEntries;
    index.delete(victim);
    return victim;
  }

  function add(key: string, hash: number, state: number, expires: number, token: number, at: number): void {
    let slot = freed.pop();
    if (slot === undefined) {
      if (used < maxEntries) {
        if (used === capacity) grow();
        slot = used++;
      } else slot = evict(at);
    }
    index.set(key, hash, slot);
    flags[slot] = FREE;
    set(slot, state, expires, token);
  }

  /** Gives `slot` a new state, keeping whether it was used. */
  function set(slot: number, state: number, expires: number, token: number): void {
    flags[slot] = ((flags[slot] ?? FREE) & USED) | state;
    expiresAt[slot] = expires;
    tokens[slot] = token;
  }

  const owns = (slot: number, token: string) =>
    ((flags[slot] ?? FREE) & STATE) === CLAIMED && String(tokens[slot]) === token;

  function claimNow(key: string, { leaseMs }: ClaimOptions): ClaimResult {
    const at = now();
    const hash = index.hash(key);
    const slot = index.find(key, hash);
    const token = ++sequence;
    if (slot === -1) add(key, hash, CLAIMED, at + leaseMs, token, at);
    else {
      // A redelivery: the key is used, so the hand passes it once more before forgetting it.
      flags[slot] = (flags[slot] ?? FREE) | USED;
      const expires = expiresAt[slot] ?? 0;
      if (expires > at) {
        if (((flags[slot] ?? FREE) & STATE) === DONE) return COMPLETED;
        return { outcome: 'in_progress', retryAfterMs: expires - at };
      }
      // An ended lease or TTL: the key is absent; its slot is taken over where it lies.
      set(slot, CLAIMED, at + leaseMs, token);
    }
    return { outcome: 'claimed', token: String(token) };
  }

  function completeNow(key: string, token: string, { ttlMs }: CompleteOptions): boolean {
    // A claim whose lease ran out but that nobody took over still completes: the work was done.
    const at = now();
    const hash = index.hash(key);
    const slot = index.find(key, hash);
    if (slot === -1) add(key, hash, DONE, at + ttlMs, 0, at);
    // Its own claim, even past its lease; or a lease or TTL that ended (the key is absent).
    else if (owns(slot, token) || (expiresAt[slot] ?? 0) <= at) set(slot, DONE, at + ttlMs, 0);
    else return false;
    return true;
  }

  const store: IdempotencyStore = {
    async claim(key, options) {
      return claimNow(key, options);
    },
    async complete(key, token, options) {
      return completeNow(key, token, options);
    },
    async extend(key, token, { leaseMs }) {
      // Whatever the lease: a claim past it that nobody took over is still this token's to renew.
      const slot = index.find(key, index.hash(key));
      if (slot === -1 || !owns(slot, token)) return false;
      expiresAt[slot] = now() + leaseMs;
      return true;
    },
    async release(key, token) {
      const slot = index.find(key, index.hash(key));
      if (slot === -1 || !owns(slot, token) || (expiresAt[slot] ?? 0) <= now()) return false;
      index.delete(slot);
      flags[slot] = FREE;
      freed.push(slot);
      return true;
    },
  };
  return withImmediateAnswers(store, claimNow, completeNow);
}
