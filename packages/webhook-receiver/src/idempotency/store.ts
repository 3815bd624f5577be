/**
 * The outcome of {@link IdempotencyStore.claim}:
 * - `claimed`: this caller runs the event; it must later `complete` or `release` with `token`.
 * - `in_progress`: another caller holds a live claim; try again after `retryAfterMs`.
 * - `completed`: the event was already processed (remembered until its TTL ends).
 */
export type ClaimResult =
  | { readonly outcome: 'claimed'; readonly token: string }
  | { readonly outcome: 'in_progress'; readonly retryAfterMs: number }
  | { readonly outcome: 'completed' };

/** Options of {@link IdempotencyStore.claim}. */
export interface ClaimOptions {
  /** How long the claim holds before another caller may take it over (after a crash). */
  readonly leaseMs: number;
}

/** Options of {@link IdempotencyStore.complete}. */
export interface CompleteOptions {
  /** How long the processed key is remembered. */
  readonly ttlMs: number;
}

/**
 * Remembers which events were processed, shared by every receiver that must not run an event
 * twice. A key is in one of three states: absent (never seen, released, or expired), claimed
 * (in progress, with a lease and a per-claim token) or completed (with a TTL).
 *
 * `claim` must be atomic: of many concurrent claims of one absent key exactly one is
 * `claimed`. `complete` and `release` act only when `token` still owns the claim (a claim
 * taken over after its lease ended is not disturbed) and resolve to whether they did;
 * `complete` also succeeds when the lease ended and nobody took the key over, because the
 * work was done. `extend` (optional, implemented by every store of this package) renews the
 * lease while the handler still runs; without it a handler that outlives `leaseMs` may be run
 * again by a redelivery.
 *
 * @example
 * const claim = await store.claim(event.idempotencyKey, { leaseMs: DEFAULT_IDEMPOTENCY_LEASE_MS });
 * if (claim.outcome === 'claimed') {
 *   try { await work(); await store.complete(event.idempotencyKey, claim.token, { ttlMs }); }
 *   catch (error) { await store.release(event.idempotencyKey, claim.token); throw error; }
 * }
 */
export interface IdempotencyStore {
  claim(key: string, options: ClaimOptions): Promise<ClaimResult>;
  complete(key: string, token: string, options: CompleteOptions): Promise<boolean>;
  release(key: string, token: string): Promise<boolean>;
  /**
   * Renews the lease of the claim `token` holds to `leaseMs` from now. Resolves to `false`, and
   * changes nothing, when the key was completed, released, or taken over by another claim.
   */
  extend?(key: string, token: string, options: ClaimOptions): Promise<boolean>;
}

/** A clock in milliseconds since the epoch; injectable so tests move time without sleeping. */
export type Clock = () => number;

/** A random, unguessable claim token (Web Crypto, so it runs on every runtime). */
export function newClaimToken(): string {
  return crypto.randomUUID();
}
