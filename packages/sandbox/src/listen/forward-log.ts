import type Database from 'better-sqlite3';

/** Where one attempt was forwarded: the listener, its host and who ran it. */
export interface ForwardMark {
  readonly listenerId: string;
  readonly host: string;
  readonly username: string;
  readonly forwardTo: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS portal_forwards (
  event_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  company_id INTEGER NOT NULL,
  listener_id TEXT NOT NULL,
  host TEXT NOT NULL,
  username TEXT NOT NULL,
  forward_to TEXT NOT NULL,
  at INTEGER NOT NULL,
  PRIMARY KEY (event_id, attempt)
);
`;

/**
 * The portal's record of which attempts went through `kyc-sandbox listen` instead of the
 * engine's own HTTPS connection. The engine's attempt log is the same as for any attempt (its
 * record format is shared by every store); this table, in the sandbox's file, is what marks
 * the forwarded ones. Written when the attempt is handed to the listener, before its result.
 */
export class ForwardLog {
  readonly #db: Database.Database;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#db.exec(SCHEMA);
  }

  mark(eventId: string, attempt: number, companyId: number, mark: ForwardMark, now: number): void {
    this.#db
      .prepare(
        `INSERT OR REPLACE INTO portal_forwards (event_id, attempt, company_id, listener_id, host, username, forward_to, at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(eventId, attempt, companyId, mark.listenerId, mark.host, mark.username, mark.forwardTo, now);
  }

  /** The forwarded attempts of one of the company's deliveries, by attempt number. */
  forEvent(companyId: number, eventId: string): Map<number, ForwardMark> {
    const rows = this.#db
      .prepare('SELECT * FROM portal_forwards WHERE company_id = ? AND event_id = ?')
      .all(companyId, eventId) as Record<string, unknown>[];
    return new Map(
      rows.map((row) => [
        Number(row.attempt),
        {
          listenerId: String(row.listener_id),
          host: String(row.host),
          username: String(row.username),
          forwardTo: String(row.forward_to),
        },
      ]),
    );
  }
}
