/**
 * Statements of the previous release of `@kyc/delivery-engine`, the one before schema version 3,
 * verbatim from `git show b3256e2^:packages/delivery-engine/src/store/postgres.ts` (with that
 * release's CLAIM_COLUMNS and ATTEMPT_COLUMNS), for a table without a schema or prefix. Its
 * claim moves `next_attempt_at` to the lease end and copies the due time to `due_at`; it does
 * not know `lease_until`, where newer workers keep their leases.
 */

const CLAIM_COLUMNS = [
  'id, url, origin, auth_key, signing_secret, body, attempts, round_attempts, round, lost_leases, lease_token',
  'due_at, created_at, session_id, company_id, trace_parent',
]
  .join(', ')
  .split(', ')
  .map((column) => `d.${column}`)
  .join(', ');

/** $1 now, $2 lease end, $3 limit, $4 excluded origins, $5 room per origin, $6/$7 busy origins and counts. */
export const PREVIOUS_RELEASE_CLAIM = `WITH cand AS (SELECT id, origin, next_attempt_at FROM deliveries
                        WHERE state = 'pending' AND next_attempt_at <= $1 AND NOT (origin = ANY($4::text[]))
                        ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED),
              busy AS (SELECT * FROM unnest($6::text[], $7::int[]) AS b(origin, n)),
              c AS (SELECT r.id FROM (SELECT id, origin, next_attempt_at,
                                             row_number() OVER (PARTITION BY origin ORDER BY next_attempt_at) AS n
                                        FROM cand) r
                      LEFT JOIN busy b ON b.origin = r.origin
                     WHERE r.n <= $5 - coalesce(b.n, 0)
                     ORDER BY r.next_attempt_at LIMIT $3)
         UPDATE deliveries d
            SET lost_leases = d.lost_leases + d.leased, leased = 1, lease_token = d.lease_token + 1,
                due_at = d.next_attempt_at, next_attempt_at = $2
           FROM c WHERE d.id = c.id
         RETURNING ${CLAIM_COLUMNS}`;

/** Results as fifteen parallel arrays: id, token, state, next_at, finished_at, then the attempt row. */
export const PREVIOUS_RELEASE_COMPLETE = `WITH i AS (SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::bigint[], $6::int[],
                    $7::int[], $8::bigint[], $9::text[], $10::int[], $11::text[], $12::text[], $13::int[], $14::text[], $15::text[])
                    AS i(id, token, state, next_at, finished_at, attempt, round, started_at, request_headers, status,
                         outcome, dialed_address, latency_ms, response_snippet, error_message)),
            u AS (UPDATE deliveries d
                     SET state = i.state, attempts = d.attempts + 1, round_attempts = d.round_attempts + 1,
                         next_attempt_at = i.next_at, finished_at = i.finished_at, leased = 0, lost_leases = 0,
                         last_outcome = i.outcome, last_status = i.status
                    FROM i WHERE d.id = i.id AND d.lease_token = i.token AND d.leased = 1 AND d.state = 'pending'
                  RETURNING d.id)
       INSERT INTO delivery_attempts (delivery_id, attempt, round, started_at, request_headers, status, outcome, dialed_address, latency_ms, response_snippet, error_message)
       SELECT i.id, i.attempt, i.round, i.started_at, i.request_headers, i.status, i.outcome, i.dialed_address,
              i.latency_ms, i.response_snippet, i.error_message
         FROM i JOIN u ON u.id = i.id
       RETURNING delivery_id`;
