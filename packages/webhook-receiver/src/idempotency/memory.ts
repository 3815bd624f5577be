import { WebhookError } from '../webhook-error.js';
import type { ClaimResult, Clock, IdempotencyStore } from './store.js';

/** Options of {@link memoryIdempotencyStore}. */
export interface MemoryIdempotencyStoreOptions {
  /** About how many keys are kept (the bound is never exceeded). Default 10 000. */
  readonly maxEntries?: number;
  /** Milliseconds since the epoch; default `Date.now`. */
  readonly now?: Clock;
}

// Mutable: completing or extending a claim updates its entry where it lies (one lookup, no new
// object). Each entry sits in exactly one of the two generations.
interface Entry {
  state: 'claimed' | 'completed';
  token: string;
  expiresAt: number;
}

const DEFAULT_MAX_ENTRIES = 10_000;
const COMPLETED: ClaimResult = /* @__PURE__ */ Object.freeze({ outcome: 'completed' });

/**
 * An idempotency store in this process's memory, bounded by `maxEntries`: the least recently
 * used keys are forgotten first, live claims last. Right for one long-lived process; serverless
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
  // Two generations (as quick-lru does): new and used keys go to `current`; when it is full it
  // becomes `previous` and the old `previous` is dropped, keeping only its live claims. Every
  // operation is O(1) amortised — evicting from one Map in insertion order is not, because V8
  // walks over deleted slots from the start each time.
  const generation = Math.floor(maxEntries / 2);
  let current = new Map<string, Entry>();
  let previous = new Map<string, Entry>();
  // Tokens only have to differ between claims of this one process: a counter is enough and cheap.
  let sequence = 0;

  function rotate(): void {
    const dropped = previous;
    previous = current;
    current = new Map();
    const at = now();
    for (const [key, entry] of dropped) {
      if (current.size >= generation - 1) break;
      if (entry.state === 'claimed' && entry.expiresAt > at && !previous.has(key)) current.set(key, entry);
    }
  }

  function add(key: string, entry: Entry): void {
    current.set(key, entry);
    if (current.size >= generation) rotate();
  }

  /**
   * The entry of `key`, moved into `current` when it was found in `previous` (it was used);
   * with `at`, only while its lease or TTL lasts (an ended one is forgotten).
   */
  function find(key: string, at?: number): Entry | undefined {
    let entry = current.get(key);
    if (entry !== undefined) {
      if (at === undefined || entry.expiresAt > at) return entry;
      current.delete(key);
      return undefined;
    }
    entry = previous.get(key);
    if (entry === undefined) return undefined;
    previous.delete(key);
    if (at !== undefined && entry.expiresAt <= at) return undefined;
    add(key, entry);
    return entry;
  }

  return {
    async claim(key, { leaseMs }): Promise<ClaimResult> {
      const at = now();
      const entry = find(key, at);
      if (entry !== undefined) {
        if (entry.state === 'completed') return COMPLETED;
        return { outcome: 'in_progress', retryAfterMs: Math.max(0, entry.expiresAt - at) };
      }
      const token = String(++sequence);
      add(key, { state: 'claimed', token, expiresAt: at + leaseMs });
      return { outcome: 'claimed', token };
    },
    async complete(key, token, { ttlMs }) {
      // A claim whose lease ran out but that nobody took over still completes: the work was done.
      const at = now();
      const entry = find(key, at);
      if (entry === undefined) {
        add(key, { state: 'completed', token, expiresAt: at + ttlMs });
        return true;
      }
      if (entry.state !== 'claimed' || entry.token !== token) return false;
      entry.state = 'completed';
      entry.expiresAt = at + ttlMs;
      return true;
    },
    async extend(key, token, { leaseMs }) {
      // No `at`: a claim past its lease that nobody took over is still this token's to renew.
      const entry = find(key);
      if (entry === undefined || entry.state !== 'claimed' || entry.token !== token) return false;
      entry.expiresAt = now() + leaseMs;
      return true;
    },
    async release(key, token) {
      const entry = find(key, now());
      if (entry === undefined || entry.state !== 'claimed' || entry.token !== token) return false;
      // Deleted from both: moving it into `current` may have rotated it into `previous`.
      current.delete(key);
      previous.delete(key);
      return true;
    },
  };
}
