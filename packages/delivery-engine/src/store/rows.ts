import { storableOrNull } from './storable-text.js';
import type {
  AttemptRecord,
  DeliveryClaim,
  DeliveryFilter,
  DeliveryState,
  DeliverySummary,
  NewDelivery,
  QueueStats,
} from './store.js';

/**
 * Row mapping shared by the SQL stores. Both use the same snake_case columns; Postgres returns
 * BIGINT as a string, so every number goes through {@link num}.
 */

type Row = Record<string, unknown>;

/** Columns selected for a summary (no secrets). */
export const SUMMARY_COLUMNS =
  'id, url, state, body, sealed_auth_key IS NOT NULL AS has_auth_key, attempts, round_attempts, round, created_at, next_attempt_at, finished_at, last_outcome, last_status';

/** Columns returned by a claim; the secrets as stored, sealed (the store's `openCredentials` opens them). */
export const CLAIM_COLUMNS =
  'id, url, origin, sealed_auth_key AS auth_key, sealed_signing_secret AS signing_secret, body, attempts, round_attempts, round, lost_leases, lease_token, due_at, created_at, session_id, company_id, trace_parent';

/** Columns written by an insert, in the order of {@link insertValues}. */
export const INSERT_COLUMNS =
  'id, url, origin, sealed_auth_key, sealed_signing_secret, body, created_at, next_attempt_at, session_id, company_id, trace_parent';

/**
 * Positional values of a new delivery, in the order of {@link INSERT_COLUMNS} (due at once), with
 * its secrets as the store keeps them: `sealed` (stored-secrets.ts), never the clear values.
 */
export function insertValues(
  d: NewDelivery,
  sealed: { readonly authKey: string | null; readonly signingSecret: string | null },
): unknown[] {
  return [
    d.id,
    d.url,
    d.origin,
    sealed.authKey,
    sealed.signingSecret,
    d.body,
    d.createdAt,
    d.createdAt,
    d.sessionId ?? null,
    d.companyId ?? null,
    d.traceParent ?? null,
  ];
}

export function toQueueStats(row: Row | undefined): QueueStats {
  return {
    due: num(row?.due ?? 0),
    waitingRetry: num(row?.waiting_retry ?? 0),
    inFlight: num(row?.in_flight ?? 0),
    oldestDueAt: optNum(row?.oldest_due_at),
  };
}

function num(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

function optNum(value: unknown): number | undefined {
  return value === null || value === undefined ? undefined : num(value);
}

function optStr(value: unknown): string | undefined {
  return value === null || value === undefined ? undefined : String(value);
}

export function toClaim(row: Row): DeliveryClaim {
  return {
    id: String(row.id),
    url: String(row.url),
    origin: String(row.origin),
    authKey: optStr(row.auth_key),
    signingSecret: optStr(row.signing_secret),
    body: String(row.body),
    attempts: num(row.attempts),
    roundAttempts: num(row.round_attempts),
    round: num(row.round),
    lostLeases: num(row.lost_leases),
    token: num(row.lease_token),
    dueAt: num(row.due_at),
    createdAt: optNum(row.created_at),
    sessionId: optStr(row.session_id),
    companyId: optStr(row.company_id),
    traceParent: optStr(row.trace_parent),
  };
}

export function toSummary(row: Row): DeliverySummary {
  const state = String(row.state) as DeliveryState;
  return {
    id: String(row.id),
    url: String(row.url),
    state,
    body: String(row.body),
    hasAuthKey: row.has_auth_key === true || row.has_auth_key === 1,
    attempts: num(row.attempts),
    roundAttempts: num(row.round_attempts),
    round: num(row.round),
    createdAt: num(row.created_at),
    nextAttemptAt: state === 'pending' ? optNum(row.next_attempt_at) : undefined,
    finishedAt: optNum(row.finished_at),
    lastOutcome: optStr(row.last_outcome),
    lastStatus: optNum(row.last_status),
  };
}

export function toAttempt(row: Row): AttemptRecord {
  const headers = typeof row.request_headers === 'string' ? JSON.parse(row.request_headers) : row.request_headers;
  return {
    attempt: num(row.attempt),
    round: num(row.round),
    startedAt: num(row.started_at),
    requestHeaders: headers as Record<string, string>,
    status: optNum(row.status),
    outcome: String(row.outcome),
    dialedAddress: optStr(row.dialed_address),
    latencyMs: num(row.latency_ms),
    responseSnippet: optStr(row.response_snippet),
    errorMessage: optStr(row.error_message),
    unrecordedSends: num(row.unrecorded_sends ?? 0),
  };
}

/** Positional values of an attempt row, in the column order of the INSERT both stores use. */
export const ATTEMPT_COLUMNS =
  'delivery_id, attempt, round, started_at, request_headers, status, outcome, dialed_address, latency_ms, response_snippet, error_message, unrecorded_sends';

export function attemptValues(id: string, attempt: AttemptRecord): unknown[] {
  return [
    id,
    attempt.attempt,
    attempt.round,
    attempt.startedAt,
    JSON.stringify(attempt.requestHeaders),
    attempt.status ?? null,
    attempt.outcome,
    attempt.dialedAddress ?? null,
    Math.round(attempt.latencyMs),
    // Receivers and sockets write these: made storable once here, for both stores.
    storableOrNull(attempt.responseSnippet),
    storableOrNull(attempt.errorMessage),
    attempt.unrecordedSends,
  ];
}

/** The WHERE clause and parameters of a list filter; `placeholder(n)` writes the n-th (1-based) parameter. */
export function listWhere(
  filter: DeliveryFilter | undefined,
  placeholder: (n: number) => string,
): { where: string; params: unknown[] } {
  const conditions: [string, unknown][] = [];
  if (filter?.state !== undefined) conditions.push(['state =', filter.state]);
  if (filter?.url !== undefined) conditions.push(['url =', filter.url]);
  if (filter?.createdSince !== undefined) conditions.push(['created_at >=', filter.createdSince]);
  if (filter?.createdBefore !== undefined) conditions.push(['created_at <', filter.createdBefore]);
  if (conditions.length === 0) return { where: '', params: [] };
  return {
    where: `WHERE ${conditions.map(([sql], i) => `${sql} ${placeholder(i + 1)}`).join(' AND ')}`,
    params: conditions.map(([, value]) => value),
  };
}
