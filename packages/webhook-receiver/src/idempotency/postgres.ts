import { WebhookError } from '../webhook-error.js';
import { type ClaimResult, type Clock, type IdempotencyStore, newClaimToken } from './store.js';

/** Anything with `pg`'s `query(text, params)`: a `Pool`, a `Client`, or a compatible driver. */
export interface PostgresLikeClient {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** Options of {@link postgresIdempotencyStore} and {@link createIdempotencyTable}. */
export interface PostgresIdempotencyStoreOptions {
  /** Table name, optionally schema-qualified. Default `kyc_webhook_idempotency`. */
  readonly tableName?: string;
  /** Milliseconds since the epoch; default `Date.now`. Leases and TTLs are measured with it. */
  readonly now?: Clock;
}

const DEFAULT_TABLE = 'kyc_webhook_idempotency';
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$/;
const MAX_CLAIM_ROUNDS = 5;

/** Quotes a validated (schema-qualified) name; anything else is refused, never interpolated. */
function tableOf(options: PostgresIdempotencyStoreOptions): string {
  const name = options.tableName ?? DEFAULT_TABLE;
  if (!IDENTIFIER.test(name)) {
    throw new WebhookError(
      'invalid_option',
      'postgres idempotency store: tableName must be letters, digits and underscores, optionally "schema.table".',
    );
  }
  return name
    .split('.')
    .map((part) => `"${part}"`)
    .join('.');
}

/**
 * Creates the store's table if it does not exist. Run it once at deploy time (or at start-up).
 *
 * @example
 * await createIdempotencyTable(pool);
 */
export async function createIdempotencyTable(
  client: PostgresLikeClient,
  options: PostgresIdempotencyStoreOptions = {},
): Promise<void> {
  const table = tableOf(options);
  await client.query(
    `CREATE TABLE IF NOT EXISTS ${table} (
      key text PRIMARY KEY,
      state text NOT NULL CHECK (state IN ('claimed', 'completed')),
      token text NOT NULL,
      expires_at bigint NOT NULL
    )`,
  );
}

interface Row {
  state: string;
  token: string;
  expires_at: string | number;
}

/**
 * An idempotency store in Postgres, shared by every replica. A claim is one
 * `INSERT … ON CONFLICT DO UPDATE … WHERE expired`, so of many racing receivers exactly one
 * wins; an expired claim or record is taken over the same way. Times are epoch milliseconds
 * from `now` (inject a clock in tests), so replicas sharing a table need clocks that agree to
 * well within the lease (NTP does). Create the table with {@link createIdempotencyTable}.
 *
 * @example
 * import pg from 'pg';
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * await createIdempotencyTable(pool);
 * const store = postgresIdempotencyStore(pool);
 */
export function postgresIdempotencyStore(
  client: PostgresLikeClient,
  options: PostgresIdempotencyStoreOptions = {},
): IdempotencyStore {
  if (typeof client?.query !== 'function') {
    throw new WebhookError(
      'invalid_option',
      'postgresIdempotencyStore: client must have a query(text, params) method.',
    );
  }
  const table = tableOf(options);
  const now = options.now ?? Date.now;
  const claimSql = `INSERT INTO ${table} AS t (key, state, token, expires_at) VALUES ($1, 'claimed', $2, $3)
    ON CONFLICT (key) DO UPDATE SET state = 'claimed', token = EXCLUDED.token, expires_at = EXCLUDED.expires_at
    WHERE t.expires_at <= $4
    RETURNING token`;
  const readSql = `SELECT state, token, expires_at FROM ${table} WHERE key = $1`;
  // Completes the own claim, or a row nobody holds any more (lease ended, not taken over).
  const completeSql = `INSERT INTO ${table} AS t (key, state, token, expires_at) VALUES ($1, 'completed', $2, $3)
    ON CONFLICT (key) DO UPDATE SET state = 'completed', expires_at = EXCLUDED.expires_at
    WHERE (t.state = 'claimed' AND t.token = $2) OR t.expires_at <= $4
    RETURNING key`;
  const releaseSql = `DELETE FROM ${table} WHERE key = $1 AND state = 'claimed' AND token = $2 RETURNING key`;
  const extendSql = `UPDATE ${table} SET expires_at = $3 WHERE key = $1 AND state = 'claimed' AND token = $2 RETURNING key`;

  return {
    async claim(key, { leaseMs }): Promise<ClaimResult> {
      for (let round = 0; round < MAX_CLAIM_ROUNDS; round++) {
        const token = newClaimToken();
        const at = now();
        const claimed = await client.query(claimSql, [key, token, at + leaseMs, at]);
        if (claimed.rows.length === 1) return { outcome: 'claimed', token };
        const row = (await client.query(readSql, [key])).rows[0] as Row | undefined;
        // Released between the two statements: claim again.
        if (row === undefined) continue;
        const expiresAt = Number(row.expires_at);
        if (expiresAt <= now()) continue;
        if (row.state === 'completed') return { outcome: 'completed' };
        return { outcome: 'in_progress', retryAfterMs: expiresAt - now() };
      }
      throw new Error('postgresIdempotencyStore: the claim kept changing under contention');
    },
    async complete(key, token, { ttlMs }) {
      const at = now();
      return (await client.query(completeSql, [key, token, at + ttlMs, at])).rows.length === 1;
    },
    async release(key, token) {
      return (await client.query(releaseSql, [key, token])).rows.length === 1;
    },
    async extend(key, token, { leaseMs }) {
      return (await client.query(extendSql, [key, token, now() + leaseMs])).rows.length === 1;
    },
  };
}
