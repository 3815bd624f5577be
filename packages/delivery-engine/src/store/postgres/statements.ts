import { createHash } from 'node:crypto';
import { ATTEMPT_COLUMNS, CLAIM_COLUMNS, INSERT_COLUMNS } from '../rows.js';
import type { TableNames } from '../schema.js';

/** A statement `pg` prepares once per connection: its name is derived from its text. */
export interface Statement {
  readonly name: string;
  readonly text: string;
}

const statement = (text: string): Statement => ({
  name: `kyc_de_${createHash('sha256').update(text).digest('hex').slice(0, 16)}`,
  text,
});

/**
 * When a leased delivery's lease ends, in the database's time. A claim writes only `lease_until`
 * and leaves `next_attempt_at` (indexed) alone. The one other form, a lease in `next_attempt_at`
 * written by workers before schema version 3, is gone: version 4 refuses their claims and moved
 * their last leases here (postgres/refuse-old-claims.ts).
 */
const LEASE_END = 'lease_until';
/**
 * The database's time, epoch milliseconds. Leases start and end on it, never on a worker's clock:
 * a worker whose wall clock steps (NTP, a resumed VM) would otherwise take the leases of others
 * (a step forward) or hand its own out early (a step back). `now()` is the statement's start.
 */
const DB_NOW = '(extract(epoch FROM now()) * 1000)::bigint';
/**
 * A pending delivery nobody holds: due on the engine's clock at `now` (the retry schedule stays
 * on the injectable clock), and unleased or its lease over on the database's.
 */
const CLAIMABLE = (now: string) => `next_attempt_at <= ${now} AND (leased = 0 OR ${LEASE_END} <= ${DB_NOW})`;

/** Every SQL text of one Postgres store (one schema and table prefix). */
export function postgresStatements(t: TableNames, channel: string) {
  const notify = `pg_notify('${channel}', '')`;
  const claimColumns = CLAIM_COLUMNS.split(', ')
    .filter((column) => column !== 'due_at')
    .map((column) => `d.${column}`)
    .join(', ');
  /** Summary columns of reads: a leased delivery shows its lease end as its next attempt. */
  const summaryColumns = `id, url, state, body, sealed_auth_key IS NOT NULL AS has_auth_key, attempts, round_attempts, round,
    created_at, CASE WHEN leased = 1 THEN ${LEASE_END} ELSE next_attempt_at END AS next_attempt_at, finished_at,
    last_outcome, last_status`;
  return {
    summaryColumns,

    insert: statement(
      `WITH i AS (INSERT INTO ${t.deliveries} (${INSERT_COLUMNS})
                  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (id) DO NOTHING RETURNING 1)
       SELECT count(*)::int AS n, ${notify} FROM i`,
    ),

    // The oldest claimable rows nobody holds, then at most each origin's room among them: window
    // functions may not sit beside FOR UPDATE, so they rank the locked candidates a level up. The
    // update changes no indexed column, so Postgres can write it in place (a HOT update).
    claim: statement(
      `WITH cand AS (SELECT id, origin, next_attempt_at FROM ${t.deliveries}
                      WHERE state = 'pending' AND ${CLAIMABLE('$1')} AND NOT (origin = ANY($4::text[]))
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
              lease_until = ${DB_NOW} + $2
         FROM c WHERE d.id = c.id
       RETURNING ${claimColumns}, d.next_attempt_at AS due_at`,
    ),

    // The results of one group as one JSON parameter: JSON.stringify and Postgres's JSON reader
    // cost a fraction of fifteen array parameters escaped element by element by the client.
    complete: statement(
      `WITH i AS (SELECT * FROM json_to_recordset($1::json) AS i(id text, token bigint, state text, next_at bigint,
                    finished_at bigint, attempt int, round int, started_at bigint, request_headers text, status int,
                    outcome text, dialed_address text, latency_ms int, response_snippet text, error_message text,
                    unrecorded_sends int)),
            u AS (UPDATE ${t.deliveries} d
                     SET state = i.state, attempts = d.attempts + 1, round_attempts = d.round_attempts + 1,
                         next_attempt_at = i.next_at, finished_at = i.finished_at, leased = 0, lease_until = NULL,
                         lost_leases = 0, last_outcome = i.outcome, last_status = i.status
                    FROM i WHERE d.id = i.id AND d.lease_token = i.token AND d.leased = 1 AND d.state = 'pending'
                  RETURNING d.id)
       INSERT INTO ${t.attempts} (${ATTEMPT_COLUMNS})
       SELECT i.id, i.attempt, i.round, i.started_at, i.request_headers, i.status, i.outcome, i.dialed_address,
              i.latency_ms, i.response_snippet, i.error_message, i.unrecorded_sends
         FROM i JOIN u ON u.id = i.id
       RETURNING delivery_id`,
    ),

    release: statement(
      `WITH u AS (UPDATE ${t.deliveries} SET leased = 0, lease_until = NULL
                   WHERE id = $1 AND lease_token = $2 AND leased = 1 AND state = 'pending' RETURNING 1)
       SELECT count(*)::int AS n, ${notify} FROM u`,
    ),

    // The earliest due time of an unleased delivery, walking the due index. Lease ends are the
    // database's time, which the engine's sleep cannot be measured against: a delivery whose
    // lease ends (its worker died) is found by the next poll or wake-up.
    nextDueAt: statement(
      `SELECT next_attempt_at AS at FROM ${t.deliveries}
        WHERE state = 'pending' AND leased = 0 AND NOT (origin = ANY($1::text[]))
        ORDER BY next_attempt_at LIMIT 1`,
    ),

    queueStats: statement(
      `SELECT count(*) FILTER (WHERE ${CLAIMABLE('$1')}) AS due,
              count(*) FILTER (WHERE leased = 0 AND next_attempt_at > $1) AS waiting_retry,
              count(*) FILTER (WHERE leased = 1 AND ${LEASE_END} > ${DB_NOW}) AS in_flight,
              min(next_attempt_at) FILTER (WHERE ${CLAIMABLE('$1')}) AS oldest_due_at
         FROM ${t.deliveries} WHERE state = 'pending'`,
    ),

    redeliver: statement(
      `WITH u AS (UPDATE ${t.deliveries}
                     SET state = 'pending', round = round + 1, round_attempts = 0, next_attempt_at = $2,
                         finished_at = NULL, leased = 0, lease_until = NULL, lost_leases = 0
                   WHERE id = $1 AND state <> 'pending' RETURNING round)
       INSERT INTO ${t.redeliveries} (delivery_id, round, requested_at)
       SELECT $1, round, $2 FROM u RETURNING ${notify}`,
    ),

    exists: statement(`SELECT 1 FROM ${t.deliveries} WHERE id = $1`),

    // One statement, so one snapshot: the row and its attempt log agree even while a worker
    // commits an attempt (three queries could each see a different moment).
    get: statement(
      `SELECT ${summaryColumns},
              (SELECT coalesce(json_agg(a ORDER BY a.attempt), '[]') FROM ${t.attempts} a
                WHERE a.delivery_id = d.id) AS attempt_log,
              (SELECT coalesce(json_agg(json_build_object('round', r.round, 'requested_at', r.requested_at)
                                        ORDER BY r.round), '[]')
                 FROM ${t.redeliveries} r WHERE r.delivery_id = d.id) AS redelivery_log
         FROM ${t.deliveries} d WHERE d.id = $1`,
    ),
  };
}

export type PostgresStatements = ReturnType<typeof postgresStatements>;
