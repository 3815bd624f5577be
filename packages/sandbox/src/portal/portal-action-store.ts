import type Database from 'better-sqlite3';
import { optionalText, type Row } from '../store/sql-row.js';

/** An audit-log entry of an integrator's action, keyed by the click that asked for it. */
export interface PortalAction {
  readonly action: string;
  readonly target: string | undefined;
  readonly username: string;
  readonly createdAt: number;
  /** `undefined` while the action is still running. */
  readonly result: unknown;
}

/** What an idempotency key may look like (the API's header and the dashboard forms' click keys). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\w-]{16,128}$/;

/**
 * `portal_actions`, the audit log of what integrators asked for (redeliver, replay, test event),
 * keyed by the click's idempotency key, and `portal_replayed`, which deliveries each replay
 * queued (so the page after "Replay failed" shows exactly those). The tables are made by
 * `PortalStore`, which holds this.
 */
export class PortalActionStore {
  readonly #db: Database.Database;

  constructor(db: Database.Database) {
    this.#db = db;
  }

  /**
   * Claims an idempotency key for an action. The first click gets `undefined` and runs the
   * action; a repeat of the same click gets the recorded entry (result `undefined` while the
   * first is still running) and must not run it again.
   */
  beginAction(
    companyId: number,
    key: string,
    entry: { action: string; target: string | undefined; userId: number; username: string; now: number },
  ): PortalAction | undefined {
    const inserted = this.#db
      .prepare(
        `INSERT OR IGNORE INTO portal_actions (company_id, idempotency_key, action, target, user_id, username, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(companyId, key, entry.action, entry.target ?? null, entry.userId, entry.username, entry.now);
    if (inserted.changes === 1) return undefined;
    const row = this.#db
      .prepare('SELECT * FROM portal_actions WHERE company_id = ? AND idempotency_key = ?')
      .get(companyId, key) as Row;
    return toAction(row);
  }

  getAction(companyId: number, key: string): PortalAction | undefined {
    const row = this.#db
      .prepare('SELECT * FROM portal_actions WHERE company_id = ? AND idempotency_key = ?')
      .get(companyId, key) as Row | undefined;
    return row && toAction(row);
  }

  finishAction(companyId: number, key: string, result: unknown): void {
    this.#db
      .prepare('UPDATE portal_actions SET result_json = ? WHERE company_id = ? AND idempotency_key = ?')
      .run(JSON.stringify(result), companyId, key);
  }

  /** Forgets a click whose action failed before it changed anything, so the same click may be retried. */
  abandonAction(companyId: number, key: string): void {
    this.#db.prepare('DELETE FROM portal_actions WHERE company_id = ? AND idempotency_key = ?').run(companyId, key);
  }

  /** The audit log of one delivery (single redeliveries and test events name it as their target). */
  actionsFor(companyId: number, target: string): PortalAction[] {
    return (
      this.#db
        .prepare('SELECT * FROM portal_actions WHERE company_id = ? AND target = ? ORDER BY created_at')
        .all(companyId, target) as Row[]
    ).map(toAction);
  }

  /** Records the deliveries one replay queued (at most `MAX_REPLAY`), in one transaction. */
  recordReplayed(companyId: number, key: string, eventIds: readonly string[]): void {
    const insert = this.#db.prepare(
      'INSERT OR IGNORE INTO portal_replayed (company_id, idempotency_key, event_id) VALUES (?, ?, ?)',
    );
    this.#db.transaction(() => {
      for (const eventId of eventIds) insert.run(companyId, key, eventId);
    })();
  }
}

function toAction(row: Row): PortalAction {
  return {
    action: String(row.action),
    target: optionalText(row.target),
    username: String(row.username),
    createdAt: Number(row.created_at),
    result: row.result_json === null ? undefined : (JSON.parse(String(row.result_json)) as unknown),
  };
}
