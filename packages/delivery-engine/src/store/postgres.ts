import { DeliveryEngineError } from '../delivery-engine-error.js';
import { groupAsync } from './group-commit.js';
import type { PgPool, PgQueryable } from './pg-types.js';
import { listen } from './postgres-listen.js';
import {
  ATTEMPT_COLUMNS,
  attemptValues,
  CLAIM_COLUMNS,
  INSERT_COLUMNS,
  insertValues,
  listWhere,
  queueStatsSql,
  SUMMARY_COLUMNS,
  toAttempt,
  toClaim,
  toQueueStats,
  toSummary,
} from './rows.js';
import { migrationsTable, pendingMigrations, tableNames } from './schema.js';
import { type AttemptRecord, type AttemptTransition, type DeliveryStore, listLimit } from './store.js';

/** Options of {@link postgresDeliveryStore}. */
export interface PostgresDeliveryStoreOptions {
  readonly pool: PgPool;
  /** Postgres schema for the tables (created if missing); default: the connection's search path. */
  readonly schema?: string;
  /** Prefix of every table name, index and the NOTIFY channel (letters, digits, `_`). */
  readonly tablePrefix?: string;
}

type Row = Record<string, unknown>;

interface CompleteItem {
  readonly id: string;
  readonly token: number;
  readonly attempt: AttemptRecord;
  readonly next: AttemptTransition;
}

/** Positions in `attemptValues` after the delivery id: attempt … error_message. */
const ATTEMPT_FIELDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] as const;

/**
 * The store for many worker processes on many machines sharing one Postgres. Claims use
 * `FOR UPDATE SKIP LOCKED`, results are fenced by a lease token, and every insert, release
 * and redelivery sends a `NOTIFY` (delivered on commit) that wakes idle workers at once.
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
  const claimColumns = CLAIM_COLUMNS.split(', ')
    .map((column) => `d.${column}`)
    .join(', ');

  const query = async (what: string, sql: string, values: unknown[] = [], on: PgQueryable = pool) => {
    try {
      return await on.query(sql, values);
    } catch (error) {
      throw new DeliveryEngineError('store_error', `postgres store: ${what} failed`, { cause: error });
    }
  };
  const notify = `pg_notify('${channel}', '')`;

  // Results of attempts finishing in the same turn go out as one statement (one round trip,
  // one commit); each row is still fenced by its own token.
  const completeGrouped = groupAsync(async (items: readonly CompleteItem[]): Promise<boolean[]> => {
    const column = (pick: (item: CompleteItem) => unknown) => items.map(pick);
    const rows = items.map((x) => attemptValues(x.id, x.attempt));
    const result = await query(
      'complete',
      `WITH i AS (SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::bigint[], $6::int[],
                    $7::int[], $8::bigint[], $9::text[], $10::int[], $11::text[], $12::text[], $13::int[], $14::text[], $15::text[])
                    AS i(id, token, state, next_at, finished_at, attempt, round, started_at, request_headers, status,
                         outcome, dialed_address, latency_ms, response_snippet, error_message)),
            u AS (UPDATE ${t.deliveries} d
                     SET state = i.state, attempts = d.attempts + 1, round_attempts = d.round_attempts + 1,
                         next_attempt_at = i.next_at, finished_at = i.finished_at, leased = 0, lost_leases = 0,
                         last_outcome = i.outcome, last_status = i.status
                    FROM i WHERE d.id = i.id AND d.lease_token = i.token AND d.leased = 1 AND d.state = 'pending'
                  RETURNING d.id)
       INSERT INTO ${t.attempts} (${ATTEMPT_COLUMNS})
       SELECT i.id, i.attempt, i.round, i.started_at, i.request_headers, i.status, i.outcome, i.dialed_address,
              i.latency_ms, i.response_snippet, i.error_message
         FROM i JOIN u ON u.id = i.id
       RETURNING delivery_id`,
      [
        column((x) => x.id),
        column((x) => x.token),
        column((x) => x.next.state),
        column((x) => (x.next.state === 'pending' ? (x.next.nextAttemptAt ?? x.next.finishedAt) : null)),
        column((x) => (x.next.state === 'pending' ? null : x.next.finishedAt)),
        ...ATTEMPT_FIELDS.map((index) => rows.map((row) => row[index] ?? null)),
      ],
    );
    const recorded = new Set(result.rows.map((row) => String(row.delivery_id)));
    return items.map((x) => recorded.has(x.id));
  });

  return {
    async migrate() {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        // Workers starting together would race on CREATE … IF NOT EXISTS; one lock per channel name.
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [channel]);
        if (schema !== undefined) await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
        await client.query(migrationsTable(t));
        const applied = await client.query(`SELECT version FROM ${t.migrations}`);
        for (const migration of pendingMigrations(applied.rows.map((row) => Number(row.version)))) {
          for (const statement of migration.postgres(t)) await client.query(statement);
          await client.query(`INSERT INTO ${t.migrations} (version, description, applied_at) VALUES ($1, $2, $3)`, [
            migration.version,
            migration.description,
            Date.now(),
          ]);
        }
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        if (error instanceof DeliveryEngineError) throw error;
        throw new DeliveryEngineError('store_error', 'postgres store: migration failed', { cause: error });
      } finally {
        client.release();
      }
    },

    async insert(d, insertOptions) {
      const on = insertOptions?.transaction ?? pool;
      if (typeof on?.query !== 'function') {
        throw new DeliveryEngineError(
          'invalid_option',
          'enqueue: options.transaction must be the pg client that ran BEGIN (from pool.connect())',
        );
      }
      const result = await query(
        'insert',
        `WITH i AS (INSERT INTO ${t.deliveries} (${INSERT_COLUMNS})
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (id) DO NOTHING RETURNING 1)
         SELECT count(*)::int AS n, ${notify} FROM i`,
        insertValues(d),
        on,
      );
      return { created: Number(result.rows[0]?.n) === 1 };
    },

    async claim(r) {
      const result = await query(
        'claim',
        // The oldest due rows nobody holds, then at most each origin's room among them: window
        // functions may not sit beside FOR UPDATE, so they rank the locked candidates a level up.
        `WITH cand AS (SELECT id, origin, next_attempt_at FROM ${t.deliveries}
                        WHERE state = 'pending' AND next_attempt_at <= $1 AND NOT (origin = ANY($4::text[]))
                        ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED),
              busy AS (SELECT * FROM unnest($6::text[], $7::int[]) AS b(origin, n)),
              c AS (SELECT r.id FROM (SELECT id, origin, next_attempt_at,
                                             row_number() OVER (PARTITION BY origin ORDER BY next_attempt_at) AS n
                                        FROM cand) r
                      LEFT JOIN busy b ON b.origin = r.origin
                     WHERE r.n <= $5 - coalesce(b.n, 0)
                     ORDER BY r.next_attempt_at LIMIT $3)
         UPDATE ${t.deliveries} d
            SET lost_leases = d.lost_leases + d.leased, leased = 1, lease_token = d.lease_token + 1,
                due_at = d.next_attempt_at, next_attempt_at = $2
           FROM c WHERE d.id = c.id
         RETURNING ${claimColumns}`,
        [
          r.now,
          r.now + r.leaseMs,
          r.limit,
          r.excludeOrigins,
          r.maxPerOrigin ?? r.limit,
          (r.busyOrigins ?? []).map(([origin]) => origin),
          (r.busyOrigins ?? []).map(([, inFlight]) => inFlight),
        ],
      );
      return result.rows.map(toClaim).sort((a, b) => a.dueAt - b.dueAt);
    },

    complete: (c, attempt, next) => completeGrouped({ id: c.id, token: c.token, attempt, next }),

    async release(c) {
      const result = await query(
        'release',
        `WITH u AS (UPDATE ${t.deliveries} SET leased = 0, next_attempt_at = $3
                     WHERE id = $1 AND lease_token = $2 AND leased = 1 AND state = 'pending' RETURNING 1)
         SELECT count(*)::int AS n, ${notify} FROM u`,
        [c.id, c.token, c.dueAt],
      );
      return Number(result.rows[0]?.n) === 1;
    },

    async nextDueAt(exclude) {
      const result = await query(
        'nextDueAt',
        `SELECT next_attempt_at FROM ${t.deliveries}
          WHERE state = 'pending' AND NOT (origin = ANY($1::text[])) ORDER BY next_attempt_at LIMIT 1`,
        [exclude],
      );
      const row = result.rows[0];
      return row === undefined ? undefined : Number(row.next_attempt_at);
    },

    async queueStats(now) {
      const result = await query('queueStats', queueStatsSql(t.deliveries, '$1::bigint'), [now]);
      return toQueueStats(result.rows[0]);
    },

    async get(id) {
      // One statement, so one snapshot: the row and its attempt log agree even while a worker
      // commits an attempt (three queries could each see a different moment).
      const result = await query(
        'get',
        `SELECT ${SUMMARY_COLUMNS},
                (SELECT coalesce(json_agg(a ORDER BY a.attempt), '[]') FROM ${t.attempts} a
                  WHERE a.delivery_id = d.id) AS attempt_log,
                (SELECT coalesce(json_agg(json_build_object('round', r.round, 'requested_at', r.requested_at)
                                          ORDER BY r.round), '[]')
                   FROM ${t.redeliveries} r WHERE r.delivery_id = d.id) AS redelivery_log
           FROM ${t.deliveries} d WHERE d.id = $1`,
        [id],
      );
      const row = result.rows[0];
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
      const result = await query(
        'list',
        `SELECT ${SUMMARY_COLUMNS} FROM ${t.deliveries} ${where}
          ORDER BY created_at DESC, id DESC LIMIT ${listLimit(filter?.limit)}`,
        params,
      );
      return result.rows.map(toSummary);
    },

    async redeliver(id, now) {
      const result = await query(
        'redeliver',
        `WITH u AS (UPDATE ${t.deliveries}
                       SET state = 'pending', round = round + 1, round_attempts = 0, next_attempt_at = $2,
                           finished_at = NULL, leased = 0, lost_leases = 0
                     WHERE id = $1 AND state <> 'pending' RETURNING round)
         INSERT INTO ${t.redeliveries} (delivery_id, round, requested_at)
         SELECT $1, round, $2 FROM u RETURNING ${notify}`,
        [id, now],
      );
      if (result.rowCount === 1) return 'started';
      const existing = await query('redeliver', `SELECT 1 FROM ${t.deliveries} WHERE id = $1`, [id]);
      return existing.rows.length === 0 ? 'not_found' : 'in_progress';
    },

    subscribe: (listener) => listen(pool, channel, listener),

    // The pool belongs to the caller, who may share it with business queries.
    close: async () => {},
  };
}
