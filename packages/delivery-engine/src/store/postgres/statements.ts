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

/**
 * `o(origin)`: every origin with a pending delivery, by a loose scan of the index (origin,
 * next_attempt_at): each step seeks the next origin, so an origin's backlog is never walked.
 */
const originsOf = (deliveries: string) => `o(origin) AS (
  (SELECT origin FROM ${deliveries} WHERE state = 'pending' ORDER BY origin LIMIT 1)
  UNION ALL
  SELECT (SELECT d.origin FROM ${deliveries} d WHERE d.state = 'pending' AND d.origin > o.origin ORDER BY d.origin LIMIT 1)
    FROM o WHERE o.origin IS NOT NULL)`;

/** Every SQL text of one Postgres store (one schema and table prefix). */
export function postgresStatements(t: TableNames, channel: string) {
  const notify = `pg_notify('${channel}', '')`;
  const ORIGINS = originsOf(t.deliveries);
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

    // Round the origins, never along one origin's backlog: a loose scan of the index (origin,
    // next_attempt_at) visits each origin with pending rows once; each origin with room gets its
    // oldest claimable row's due time (one probe; the rows before it are in flight, and the lock
    // below starts from it rather than walk them again), the oldest of those in each lane are chosen
    // (the prompt lane: $3 of them, the slow lane's origins $8: $9), and only their rows are
    // locked, each at most its room and its share of its lane, then taken a turn at a time (an
    // origin with fewer due rows than its share leaves the claim short: the next one fills it). The update changes no indexed
    // column, so Postgres can write it in place (a HOT update).
    claim: statement(
      `WITH RECURSIVE ${ORIGINS},
            busy AS (SELECT * FROM unnest($6::text[], $7::int[]) AS b(origin, n)),
            room AS (SELECT o.origin, o.origin = ANY($8::text[]) AS slow, $5::int - coalesce(b.n, 0) AS n
                       FROM o LEFT JOIN busy b ON b.origin = o.origin
                      WHERE o.origin IS NOT NULL AND NOT (o.origin = ANY($4::text[]))),
            heads AS (SELECT r.*, (SELECT min(next_attempt_at) FROM ${t.deliveries} d
                                    WHERE d.state = 'pending' AND d.origin = r.origin AND ${CLAIMABLE('$1')}) AS head
                        FROM room r WHERE r.n > 0 AND (CASE WHEN r.slow THEN $9::int ELSE $3::int END) > 0),
            chosen AS (SELECT *, count(*) OVER (PARTITION BY slow) AS m
                         FROM (SELECT h.*, row_number() OVER (PARTITION BY h.slow ORDER BY h.head) AS k
                                 FROM heads h WHERE h.head IS NOT NULL) ranked
                        WHERE k <= CASE WHEN slow THEN $9::int ELSE $3::int END),
            cand AS (SELECT c.id, c.next_attempt_at, ch.slow,
                            row_number() OVER (PARTITION BY ch.origin ORDER BY c.next_attempt_at) AS turn
                       FROM chosen ch CROSS JOIN LATERAL (
                            SELECT id, next_attempt_at FROM ${t.deliveries} d
                             WHERE d.state = 'pending' AND d.origin = ch.origin AND d.next_attempt_at >= ch.head
                               AND ${CLAIMABLE('$1')}
                             ORDER BY d.next_attempt_at
                             LIMIT least(ch.n, ceil((CASE WHEN ch.slow THEN $9::int ELSE $3::int END)::numeric / ch.m)::int)
                             FOR UPDATE SKIP LOCKED) c),
            c AS (SELECT id FROM (SELECT id, slow,
                                         row_number() OVER (PARTITION BY slow ORDER BY turn, next_attempt_at) AS k
                                    FROM cand) x
                   WHERE k <= CASE WHEN slow THEN $9::int ELSE $3::int END)
       UPDATE ${t.deliveries} d
          SET lost_leases = d.lost_leases + d.leased, leased = 1, lease_token = d.lease_token + 1,
              lease_until = ${DB_NOW} + $2
        WHERE d.id = ANY(ARRAY(SELECT id FROM c))
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

    // The earliest due time of an unleased delivery, one probe per origin (the loose scan), of
    // origins not excluded ($1) whose lane is open (the prompt lane's while $3, the slow lane's
    // origins $2 while $4). Lease ends are the database's time, which the engine's sleep cannot be
    // measured against: a delivery whose lease ends (its worker died) is found by the next poll
    // or wake-up.
    nextDueAt: statement(
      `WITH RECURSIVE ${ORIGINS}
       SELECT min((SELECT next_attempt_at FROM ${t.deliveries} d
                    WHERE d.state = 'pending' AND d.origin = o.origin AND d.leased = 0
                    ORDER BY d.next_attempt_at LIMIT 1)) AS at
         FROM o
        WHERE o.origin IS NOT NULL AND NOT (o.origin = ANY($1::text[]))
          AND (CASE WHEN o.origin = ANY($2::text[]) THEN $4::boolean ELSE $3::boolean END)`,
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
