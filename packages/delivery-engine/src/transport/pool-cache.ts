import { Pool } from 'undici';
import { pinnedLookup } from './pinned-lookup.js';
import type { ResolvedAddress } from './types.js';

/**
 * Connection pools kept at once per transport; the least recently used one is closed beyond it.
 * One per endpoint origin, so a customer base of thousands keeps its connections: at 512, 5 000
 * companies each opened a new TLS connection per event (a handshake is ~3 ms of CPU, a send on a
 * warm connection ~0.3 ms). A warm origin holds one socket (~120 KB of TLS state, one descriptor).
 */
export const MAX_POOLS = 8192;
/**
 * How long an idle connection is kept for the next event when the server gives no keep-alive
 * hint (undici's default is 4 s): an origin sent an event every half minute stays warm. Under the
 * 60 s idle timeout of common load balancers, so a send rarely meets a connection they just
 * closed. A server's own `Keep-Alive: timeout=…` hint, less 2 s, wins (up to 10 minutes).
 */
export const IDLE_CONNECTION_MS = 50_000;

/** What every pool of one transport shares. */
export interface PoolSettings {
  readonly connect: Readonly<Record<string, unknown>>;
  readonly timeoutMs: number;
}

/**
 * One undici `Pool` per (origin, vetted address): connections are reused across attempts to
 * the same endpoint, and each pool's `lookup` answers only its own address, so a socket can
 * never reach an address that was not checked. Least-recently-used pools are closed
 * gracefully (in-flight requests finish) once `MAX_POOLS` is exceeded.
 */
export class PoolCache {
  readonly #pools = new Map<string, Pool>();
  readonly #settings: PoolSettings;
  /** The most recently used key: a run of sends to one endpoint skips the LRU re-insert. */
  #lastKey: string | undefined;
  #closed = false;

  constructor(settings: PoolSettings) {
    this.#settings = settings;
  }

  get(origin: string, address: ResolvedAddress): Pool {
    // A send that was vetting while close() ran must not open a pool nobody will close.
    if (this.#closed) throw new Error('transport is closed');
    const key = `${origin} ${address.address}`;
    const existing = this.#pools.get(key);
    if (existing !== undefined && key === this.#lastKey) return existing;
    this.#lastKey = key;
    if (existing !== undefined) {
      // Re-insert: Map iteration order is insertion order, so the first key is the least recent.
      this.#pools.delete(key);
      this.#pools.set(key, existing);
      return existing;
    }
    const pool = new Pool(origin, {
      connect: { ...this.#settings.connect, lookup: pinnedLookup(address), timeout: this.#settings.timeoutMs },
      // Off: the attempt's own deadline (armed by every send) is the one clock of an exchange.
      // undici's timers fire in the timers phase too, so after a pause of the whole process they
      // destroyed an answer that had arrived meanwhile before it could be read.
      headersTimeout: 0,
      bodyTimeout: 0,
      keepAliveTimeout: IDLE_CONNECTION_MS,
    });
    this.#pools.set(key, pool);
    if (this.#pools.size > MAX_POOLS) {
      const [oldestKey, oldest] = this.#pools.entries().next().value ?? [];
      if (oldestKey !== undefined && oldest !== undefined) {
        this.#pools.delete(oldestKey);
        oldest.close().catch(() => {});
      }
    }
    return pool;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Closes every pool; requests in flight are allowed to finish. */
  async close(): Promise<void> {
    this.#closed = true;
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(pools.map((pool) => pool.close().catch(() => {})));
  }

  /** Destroys every pool at once, aborting requests in flight. */
  async destroy(): Promise<void> {
    this.#closed = true;
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(pools.map((pool) => pool.destroy().catch(() => {})));
  }
}
