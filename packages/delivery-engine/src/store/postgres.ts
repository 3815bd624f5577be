import { DeliveryEngineError } from '../delivery-engine-error.js';
import type { SealingKey } from '../sealing/sealing-key.js';
import { claimAhead } from './postgres/claim-ahead.js';
import { groupedStatement } from './postgres/grouped-statement.js';
import { listen } from './postgres/listen.js';
import { migratePostgres } from './postgres/migrate.js';
import type { PgPool, PgQueryable, PgResult } from './postgres/pg-types.js';
import { postgresSealing } from './postgres/postgres-sealing.js';
import { isRowError } from './postgres/row-error.js';
import { postgresStatements, type Statement } from './postgres/statements.js';
import { attemptValues, insertValues, listWhere, toAttempt, toClaim, toQueueStats, toSummary } from './rows.js';
import { tableNames } from './schema.js';
import {
  type AttemptRecord,
  type AttemptTransition,
  type DeliveryClaim,
  type DeliveryStore,
  listLimit,
} from './store.js';

/** Options of {@link postgresDeliveryStore}. */
export interface PostgresDeliveryStoreOptions {
  readonly pool: PgPool;
  /** Postgres schema for the tables (created if missing); default: the connection's search path. */
  readonly schema?: string;
  /** Prefix of every table name, index and the NOTIFY channel (letters, digits, `_`). */
  readonly tablePrefix?: string;
  /**
   * Keys that seal the Auth Keys and signing secrets `enqueue` is given (AES-256-GCM; the first
   * seals, every one opens), the same on every worker. Without them an event with a secret is
   * refused (`sealing_key_missing`): give the engine a `credentials` hook instead.
   */
  readonly sealingKeys?: readonly SealingKey[];
}

type Row = Record<string, unknown>;

interface CompleteItem {
  readonly id: string;
  readonly token: number;
  readonly attempt: AttemptRecord;
  readonly next: AttemptTransition;
}

/**
 * How long an attempt's result waits for others to share its statement and commit (its HTTP
 * slot is already free), and how many make a statement go out at once.
 */
const RESULT_WAIT_MS = 5;
const RESULT_BATCH = 128;

/**
 * The store for many worker processes on many machines sharing one Postgres. Claims use
 * `FOR UPDATE SKIP LOCKED` and write the lease to a column no index covers, so the row is
 * updated in place (HOT); results are fenced by a lease token, and the results of one loop turn
 * go out as one statement; while the queue is deep a worker claims up to 32 deliveries ahead
 * of its free slots (postgres/claim-ahead.ts). Statements are prepared once per connection.
 * Every insert, release and redelivery sends a `NOTIFY` (delivered on commit) that wakes idle
 * workers at once.
 * `enqueue(event, { transaction: client })` writes inside the caller's transaction: the outbox.
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import { postgresDeliveryStore } from '@kyc/delivery-engine/postgres';
 * const store = postgresDeliveryStore({ pool: new pg.Pool({ connectionString }) });
 * const engine = createDeliveryEngine({ store });
 * ```
 */
export function postgresDeliveryStore(options: PostgresDeliveryStoreOptions): DeliveryStore<PgQueryable> {
  if (typeof options?.pool?.query !== 'function' || typeof options.pool.connect !== 'function') {
    throw new DeliveryEngineError('invalid_option', 'postgresDeliveryStore: `pool` must be a pg.Pool');
  }
  const { pool, schema } = options;
  const t = tableNames(options.tablePrefix ?? '', schema);
  const channel = `${schema === undefined ? '' : `${schema}_`}${t.prefix}kyc_deliveries`;
  const sql = postgresStatements(t, channel);
  const sealing = postgresSealing(pool, t, channel, options.sealingKeys);

  const run = async (what: string, query: Statement, values: unknown[], on: PgQueryable = pool): Promise<PgResult> => {
    try {
      return await on.query({ name: query.name, text: query.text, values });
    } catch (error) {
      throw new DeliveryEngineError('store_error', `postgres store: ${what} failed`, { cause: error });
    }
  };

  const completeGrouped = groupedStatement(
    async (items: readonly CompleteItem[]): Promise<boolean[]> => {
      const rows = items.map(({ id, token, attempt, next }) => {
        const [
          ,
          number,
          round,
          startedAt,
          requestHeaders,
          status,
          outcome,
          dialed,
          latency,
          snippet,
          error,
          unrecorded,
        ] = attemptValues(id, attempt);
        const pending = next.state === 'pending';
        return {
          id,
          token,
          state: next.state,
          next_at: pending ? (next.nextAttemptAt ?? next.finishedAt) : null,
          finished_at: pending ? null : next.finishedAt,
          attempt: number,
          round,
          started_at: startedAt,
          request_headers: requestHeaders,
          status,
          outcome,
          dialed_address: dialed,
          latency_ms: latency,
          response_snippet: snippet,
          error_message: error,
          unrecorded_sends: unrecorded,
        };
      });
      const result = await run('complete', sql.complete, [JSON.stringify(rows)]);
      const recorded = new Set(result.rows.map((row) => String(row.delivery_id)));
      return items.map((item) => recorded.has(item.id));
    },
    // One receiver's answer must never fail another company's result: a batch refused for a
    // row's data is written again row by row, and only the bad row fails.
    { waitMs: RESULT_WAIT_MS, fullBatch: RESULT_BATCH, retryEachOn: isRowError },
  );

  const release = async (c: Pick<DeliveryClaim, 'id' | 'token'>): Promise<boolean> => {
    const result = await run('release', sql.release, [c.id, c.token]);
    return Number(result.rows[0]?.n) === 1;
  };

  const claims = claimAhead({
    async claimRows(r) {
      const result = await run('claim', sql.claim, [
        r.now,
        // The lease's length in real time: it runs on the database's clock.
        r.leaseRealMs ?? r.leaseMs,
        r.limit,
        r.excludeOrigins,
        r.maxPerOrigin ?? r.limit + (r.slow?.limit ?? 0),
        (r.busyOrigins ?? []).map(([origin]) => origin),
        (r.busyOrigins ?? []).map(([, inFlight]) => inFlight),
        r.slow?.origins ?? [],
        r.slow?.limit ?? 0,
      ]);
      return result.rows.map(toClaim).sort((a, b) => a.dueAt - b.dueAt);
    },
    release,
  });

  return {
    async migrate() {
      await migratePostgres(pool, t, channel, schema);
      // A worker with the wrong keys refuses to start; what an earlier release kept in clear is sealed.
      await sealing.ready();
    },

    async insert(d, insertOptions) {
      const on = insertOptions?.transaction ?? pool;
      if (typeof on?.query !== 'function') {
        throw new DeliveryEngineError(
          'invalid_option',
          'enqueue: options.transaction must be the pg client that ran BEGIN (from pool.connect())',
        );
      }
      const result = await run('insert', sql.insert, insertValues(d, sealing.sealed(d)), on);
      return { created: Number(result.rows[0]?.n) === 1 };
    },

    claim: claims.claim,
    releaseHeld: claims.releaseHeld,

    complete: (c, attempt, next) => completeGrouped({ id: c.id, token: c.token, attempt, next }),

    release,

    async nextDueAt(exclude, lanes) {
      const heldDue = claims.nextHeldDue(exclude, lanes);
      if (heldDue !== undefined) return heldDue;
      const at = (
        await run('nextDueAt', sql.nextDueAt, [
          exclude,
          lanes?.slow?.origins ?? [],
          lanes === undefined || lanes.limit > 0,
          lanes === undefined || (lanes.slow?.limit ?? 0) > 0,
        ])
      ).rows[0]?.at;
      return at === null || at === undefined ? undefined : Number(at);
    },

    async queueStats(now) {
      return toQueueStats((await run('queueStats', sql.queueStats, [now])).rows[0]);
    },

    async get(id) {
      const row = (await run('get', sql.get, [id])).rows[0];
      if (row === undefined) return undefined;
      return {
        ...toSummary(row),
        attemptLog: (row.attempt_log as Row[]).map(toAttempt),
        redeliveries: (row.redelivery_log as Row[]).map((r) => ({
          round: Number(r.round),
          requestedAt: Number(r.requested_at),
        })),
      };
    },

    async list(filter) {
      const { where, params } = listWhere(filter, (n) => `$${n}`);
      try {
        const result = await pool.query(
          `SELECT ${sql.summaryColumns} FROM ${t.deliveries} ${where}
            ORDER BY created_at DESC, id DESC LIMIT ${listLimit(filter?.limit)}`,
          params,
        );
        return result.rows.map(toSummary);
      } catch (error) {
        throw new DeliveryEngineError('store_error', 'postgres store: list failed', { cause: error });
      }
    },

    async redeliver(id, now) {
      const result = await run('redeliver', sql.redeliver, [id, now]);
      if (result.rowCount === 1) return 'started';
      const existing = await run('redeliver', sql.exists, [id]);
      return existing.rows.length === 0 ? 'not_found' : 'in_progress';
    },

    openCredentials: (claim) => sealing.open(claim),
    resealSecrets: () => sealing.reseal(),

    subscribe: (listener) => listen(pool, channel, listener),

    // The pool belongs to the caller, who may share it with business queries.
    close: async () => {},
  };
}
