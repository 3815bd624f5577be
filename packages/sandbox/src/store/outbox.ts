import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { PortalStore } from '../portal/portal-store.js';
import { optionalInteger, optionalText, type Row } from './sql-row.js';

/** A webhook event written in the finish transaction, waiting to be handed to the engine. */
export interface OutboxRow {
  readonly eventId: string;
  readonly sessionId: string;
  readonly url: string | undefined;
  readonly body: string;
  readonly relayedAt: number | undefined;
  readonly relayError: string | undefined;
  readonly companyId: number;
  /** W3C traceparent of the request that finished the session, so the enqueue joins its trace. */
  readonly traceParent: string | undefined;
}

/** What a finish writes: the rest (the event id, the relay columns) the outbox fills in. */
export interface NewOutboxEvent {
  readonly sessionId: string;
  readonly companyId: number;
  readonly url: string | undefined;
  /** The last four characters of the company's Auth Key then, for the portal (never the key). */
  readonly authKeyHint: string | undefined;
  readonly body: string;
  readonly createdAt: number;
  readonly traceParent: string | undefined;
}

function toOutbox(row: Row): OutboxRow {
  return {
    eventId: String(row.event_id),
    sessionId: String(row.session_id),
    url: optionalText(row.url),
    body: String(row.body),
    relayedAt: optionalInteger(row.relayed_at),
    relayError: optionalText(row.relay_error),
    companyId: Number(row.company_id),
    traceParent: optionalText(row.trace_parent),
  };
}

/**
 * The outbox table: each finished session's webhook, written in the finish's own transaction and
 * handed to the engine by the relay. Relaying also moves the portal's row out of Queued, in the
 * same transaction, so the portal never shows an event the engine has but the outbox does not.
 */
export class Outbox {
  readonly #db: Database.Database;
  readonly #portal: PortalStore;

  constructor(db: Database.Database, portal: PortalStore) {
    this.#db = db;
    this.#portal = portal;
  }

  /**
   * Writes one event and returns its id; call it inside the finish's transaction. It holds no
   * Auth Key (`auth_key` stays NULL; older sandboxes copied it here): the engine asks for the
   * company's key when it sends.
   */
  insert(event: NewOutboxEvent): string {
    const eventId = `evt_${randomBytes(16).toString('hex')}`;
    this.#db
      .prepare(
        'INSERT INTO outbox (event_id, session_id, company_id, url, auth_key_hint, body, created_at, trace_parent) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        eventId,
        event.sessionId,
        event.companyId,
        event.url ?? null,
        event.authKeyHint ?? null,
        event.body,
        event.createdAt,
        event.traceParent ?? null,
      );
    return eventId;
  }

  /** Rows not yet handed to the engine, oldest first. */
  unrelayed(limit = 100): OutboxRow[] {
    const rows = this.#db
      .prepare('SELECT * FROM outbox WHERE relayed_at IS NULL ORDER BY created_at, event_id LIMIT ?')
      .all(limit) as Row[];
    return rows.map(toOutbox);
  }

  markRelayed(eventId: string, now: number, error: string | undefined): void {
    this.#db.transaction(() => {
      this.#db
        .prepare('UPDATE outbox SET relayed_at = ?, relay_error = ? WHERE event_id = ?')
        .run(now, error ?? null, eventId);
      this.#portal.markRelayed(eventId, error, now);
    })();
  }

  forSession(sessionId: string): OutboxRow | undefined {
    const row = this.#db.prepare('SELECT * FROM outbox WHERE session_id = ?').get(sessionId) as Row | undefined;
    return row && toOutbox(row);
  }

  byEvent(eventId: string, companyId: number): OutboxRow | undefined {
    const row = this.#db
      .prepare('SELECT * FROM outbox WHERE event_id = ? AND company_id = ?')
      .get(eventId, companyId) as Row | undefined;
    return row && toOutbox(row);
  }

  /** A company's events, newest first. */
  list(companyId: number, limit = 200): OutboxRow[] {
    const rows = this.#db
      .prepare('SELECT * FROM outbox WHERE company_id = ? ORDER BY created_at DESC, event_id LIMIT ?')
      .all(companyId, limit) as Row[];
    return rows.map(toOutbox);
  }
}
