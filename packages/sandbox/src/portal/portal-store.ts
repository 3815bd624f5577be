import type Database from 'better-sqlite3';
import { optionalInteger, optionalText, type Row } from '../store/sql-row.js';
import { listDeliveriesSql, type PortalListQuery, type PortalState } from './list-deliveries-sql.js';
import { PortalActionStore } from './portal-action-store.js';
import { PORTAL_SCHEMA_SQL } from './portal-schema.js';

export type { PortalListQuery, PortalState } from './list-deliveries-sql.js';

/** A delivery as the portal's projection holds it (no secret: only the Auth Key's last four characters). */
export interface PortalDeliveryRow {
  readonly eventId: string;
  readonly companyId: number;
  readonly sessionId: string;
  readonly shortKey: string;
  /** `session` for a finished session's webhook, `test` for a test event. */
  readonly kind: 'session' | 'test';
  readonly url: string | undefined;
  readonly authKeyHint: string | undefined;
  readonly state: PortalState;
  readonly attempts: number;
  readonly lastOutcome: string | undefined;
  readonly lastStatus: number | undefined;
  readonly nextAttemptAt: number | undefined;
  readonly note: string | undefined;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** One attempt in the projection; times on the wall clock. */
export interface PortalAttemptRow {
  readonly eventId: string;
  readonly attempt: number;
  readonly at: number;
  readonly outcome: string;
  readonly status: number | undefined;
  readonly latencyMs: number;
  readonly error: string | undefined;
}

function toDelivery(row: Row): PortalDeliveryRow {
  return {
    eventId: String(row.event_id),
    companyId: Number(row.company_id),
    sessionId: String(row.session_id),
    shortKey: String(row.short_key),
    kind: row.kind === 'test' ? 'test' : 'session',
    url: optionalText(row.url),
    authKeyHint: optionalText(row.auth_key_hint),
    state: String(row.state) as PortalState,
    attempts: Number(row.attempts),
    lastOutcome: optionalText(row.last_outcome),
    lastStatus: optionalInteger(row.last_status),
    nextAttemptAt: optionalInteger(row.next_attempt_at),
    note: optionalText(row.note),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function toAttempt(row: Row): PortalAttemptRow {
  return {
    eventId: String(row.event_id),
    attempt: Number(row.attempt),
    at: Number(row.at),
    outcome: String(row.outcome),
    status: optionalInteger(row.status),
    latencyMs: Number(row.latency_ms),
    error: optionalText(row.error),
  };
}

/** The portal's projection and audit log, in the sandbox's SQLite file (synchronous, one process). */
export class PortalStore {
  readonly #db: Database.Database;
  /** The integrators' actions and what each replay queued. */
  readonly actions: PortalActionStore;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#db.exec(PORTAL_SCHEMA_SQL);
    this.actions = new PortalActionStore(db);
  }

  insertDelivery(row: Omit<PortalDeliveryRow, 'attempts' | 'lastOutcome' | 'lastStatus' | 'nextAttemptAt'>): void {
    this.#db
      .prepare(
        `INSERT OR IGNORE INTO portal_deliveries (event_id, company_id, session_id, short_key, kind, url, auth_key_hint,
         state, note, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        row.eventId,
        row.companyId,
        row.sessionId,
        row.shortKey,
        row.kind,
        row.url ?? null,
        row.authKeyHint ?? null,
        row.state,
        row.note ?? null,
        row.createdAt,
        row.updatedAt,
      );
  }

  /** The last four characters of the key an attempt of the event carries (the key saved when it was sent). */
  noteAuthKeyHint(eventId: string, hint: string | undefined): void {
    this.#db
      .prepare('UPDATE portal_deliveries SET auth_key_hint = ? WHERE event_id = ? AND auth_key_hint IS NOT ?')
      .run(hint ?? null, eventId, hint ?? null);
  }

  /** The outbox handed the event to the engine (or gave up on it with `error`). */
  markRelayed(eventId: string, error: string | undefined, now: number): void {
    this.#db
      .prepare(
        `UPDATE portal_deliveries SET state = ?, note = ?, updated_at = ? WHERE event_id = ? AND state = 'queued'`,
      )
      .run(error === undefined ? 'pending' : 'not_sent', error ?? null, now, eventId);
  }

  /** Rows for outbox events written before the portal existed (an older data folder). */
  backfillFromOutbox(now: number): number {
    return this.#db
      .prepare(
        `INSERT OR IGNORE INTO portal_deliveries (event_id, company_id, session_id, short_key, kind, url, auth_key_hint,
           state, note, created_at, updated_at)
         SELECT o.event_id, o.company_id, o.session_id, s.short_key, 'session', o.url,
           COALESCE(o.auth_key_hint, CASE WHEN o.auth_key IS NULL THEN NULL ELSE substr(o.auth_key, -4) END),
           CASE WHEN o.relayed_at IS NULL THEN 'queued' WHEN o.relay_error IS NOT NULL THEN 'not_sent' ELSE 'pending' END,
           o.relay_error, o.created_at, ?
         FROM outbox o JOIN sessions s ON s.id = o.session_id
         WHERE NOT EXISTS (SELECT 1 FROM portal_deliveries p WHERE p.event_id = o.event_id)`,
      )
      .run(now).changes;
  }

  /** Event ids the engine may have moved on since the projection last heard (crash between the two). */
  openEventIds(limit: number, afterEventId = ''): string[] {
    return (
      this.#db
        .prepare(
          `SELECT event_id FROM portal_deliveries WHERE state = 'pending' AND event_id > ? ORDER BY event_id LIMIT ?`,
        )
        .all(afterEventId, limit) as Row[]
    ).map((row) => String(row.event_id));
  }

  /** Records an attempt and the delivery's state after it (a repeated attempt changes nothing); the company, or `undefined` for an event the portal does not know. */
  recordAttempt(
    attempt: PortalAttemptRow,
    state: PortalState,
    nextAttemptAt: number | undefined,
    now: number,
  ): number | undefined {
    return this.#db.transaction(() => {
      const row = this.#db
        .prepare('SELECT company_id FROM portal_deliveries WHERE event_id = ?')
        .get(attempt.eventId) as Row | undefined;
      if (!row) return undefined;
      this.#db
        .prepare(
          `INSERT OR IGNORE INTO portal_attempts (event_id, attempt, company_id, at, outcome, status, latency_ms, error)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          attempt.eventId,
          attempt.attempt,
          Number(row.company_id),
          attempt.at,
          attempt.outcome,
          attempt.status ?? null,
          attempt.latencyMs,
          attempt.error ?? null,
        );
      // Only a newer attempt moves the state: a late or replayed hook must not undo a redelivery.
      this.#db
        .prepare(
          `UPDATE portal_deliveries SET state = ?, attempts = ?, last_outcome = ?, last_status = ?, next_attempt_at = ?,
           note = NULL, updated_at = ? WHERE event_id = ? AND attempts < ?`,
        )
        .run(
          state,
          attempt.attempt,
          attempt.outcome,
          attempt.status ?? null,
          nextAttemptAt ?? null,
          now,
          attempt.eventId,
          attempt.attempt,
        );
      return Number(row.company_id);
    })();
  }

  /** A redelivery was queued in the engine: the delivery is pending again, due now. */
  markRedelivered(eventId: string, now: number): void {
    this.#db
      .prepare(`UPDATE portal_deliveries SET state = 'pending', next_attempt_at = ?, updated_at = ? WHERE event_id = ?`)
      .run(now, now, eventId);
  }

  get(companyId: number, eventId: string): PortalDeliveryRow | undefined {
    const row = this.#db
      .prepare('SELECT * FROM portal_deliveries WHERE event_id = ? AND company_id = ?')
      .get(eventId, companyId) as Row | undefined;
    return row && toDelivery(row);
  }

  /** One page, newest first; `limit + 1` rows are read so the caller knows whether another page exists. */
  list(companyId: number, query: PortalListQuery): { rows: PortalDeliveryRow[]; more: boolean } {
    const { sql, args, backwards } = listDeliveriesSql(companyId, query);
    const rows = (this.#db.prepare(sql).all(...args) as Row[]).map(toDelivery);
    const more = rows.length > query.limit;
    const page = rows.slice(0, query.limit);
    return { rows: backwards ? page.reverse() : page, more };
  }

  /** Failed deliveries of a company created at or after `since`, oldest first. */
  failedSince(companyId: number, since: number, limit: number): string[] {
    return (
      this.#db
        .prepare(
          `SELECT event_id FROM portal_deliveries WHERE company_id = ? AND state = 'failed' AND created_at >= ?
           ORDER BY created_at, event_id LIMIT ?`,
        )
        .all(companyId, since, limit) as Row[]
    ).map((row) => String(row.event_id));
  }

  attemptsSince(companyId: number, since: number): PortalAttemptRow[] {
    return (
      this.#db
        .prepare('SELECT * FROM portal_attempts WHERE company_id = ? AND at >= ? ORDER BY at')
        .all(companyId, since) as Row[]
    ).map(toAttempt);
  }

  lastFailures(companyId: number, limit: number): PortalAttemptRow[] {
    return (
      this.#db
        .prepare(
          `SELECT * FROM portal_attempts WHERE company_id = ? AND outcome <> 'delivered' ORDER BY at DESC LIMIT ?`,
        )
        .all(companyId, limit) as Row[]
    ).map(toAttempt);
  }

  /** Pending deliveries by the number of attempts already made, and the earliest next attempt. */
  retryState(companyId: number): { byAttempts: Record<number, number>; nextAttemptAt: number | undefined } {
    const rows = this.#db
      .prepare(
        `SELECT attempts, COUNT(*) AS n, MIN(next_attempt_at) AS next FROM portal_deliveries
         WHERE company_id = ? AND state = 'pending' GROUP BY attempts`,
      )
      .all(companyId) as Row[];
    const byAttempts: Record<number, number> = {};
    let next: number | undefined;
    for (const row of rows) {
      byAttempts[Number(row.attempts)] = Number(row.n);
      const due = optionalInteger(row.next);
      if (due !== undefined && (next === undefined || due < next)) next = due;
    }
    return { byAttempts, nextAttemptAt: next };
  }

  countFailedSince(companyId: number, since: number): number {
    const row = this.#db
      .prepare(
        `SELECT COUNT(*) AS n FROM portal_deliveries WHERE company_id = ? AND state = 'failed' AND created_at >= ?`,
      )
      .get(companyId, since) as Row;
    return Number(row.n);
  }
}
