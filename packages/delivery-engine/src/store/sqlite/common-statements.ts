import { INSERT_COLUMNS, insertValues, listWhere, SUMMARY_COLUMNS, toAttempt, toSummary } from '../rows.js';
import {
  type DeliveryFilter,
  type DeliveryRecord,
  type DeliverySummary,
  listLimit,
  type NewDelivery,
  type RedeliverResult,
} from '../store.js';
import type { SqliteFile } from './open-sqlite.js';

type Row = Record<string, unknown>;

/** What both SQLite modes do the same way: store an event, read deliveries, start a redelivery. */
export interface CommonStatements {
  /** Inserts a delivery due at its creation time, its secrets `sealed`; `false` when the id exists (left untouched). */
  insert(delivery: NewDelivery, sealed: Parameters<typeof insertValues>[1]): boolean;
  /** The delivery, its attempt log and its redeliveries, from one read snapshot. */
  read(id: string): DeliveryRecord | undefined;
  list(filter: DeliveryFilter | undefined): DeliverySummary[];
  /** Runs inside the caller's write transaction; `origin` is the delivery's, when it started. */
  redeliver(id: string, now: number): { readonly result: RedeliverResult; readonly origin?: string };
}

export function prepareCommon({ db, t }: SqliteFile): CommonStatements {
  const insert = db.prepare(
    `INSERT INTO ${t.deliveries} (${INSERT_COLUMNS})
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
  );
  const getOne = db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM ${t.deliveries} WHERE id = ?`);
  const getAttempts = db.prepare(`SELECT * FROM ${t.attempts} WHERE delivery_id = ? ORDER BY attempt`);
  const getRedeliveries = db.prepare(
    `SELECT round, requested_at FROM ${t.redeliveries} WHERE delivery_id = ? ORDER BY round`,
  );
  const stateOf = db.prepare(`SELECT state, round, origin FROM ${t.deliveries} WHERE id = ?`);
  const restart = db.prepare(
    `UPDATE ${t.deliveries}
        SET state = 'pending', round = round + 1, round_attempts = 0, next_attempt_at = ?,
            finished_at = NULL, leased = 0, lost_leases = 0
      WHERE id = ?`,
  );
  const insertRedelivery = db.prepare(
    `INSERT INTO ${t.redeliveries} (delivery_id, round, requested_at) VALUES (?, ?, ?)`,
  );
  // One read transaction (deferred: it takes no write lock), so the row and its attempt log come
  // from the same snapshot even while another process commits an attempt between the statements.
  const read = db.transaction((id: string): DeliveryRecord | undefined => {
    const row = getOne.get(id) as Row | undefined;
    if (row === undefined) return undefined;
    return {
      ...toSummary(row),
      attemptLog: (getAttempts.all(id) as Row[]).map(toAttempt),
      redeliveries: (getRedeliveries.all(id) as Row[]).map((r) => ({
        round: Number(r.round),
        requestedAt: Number(r.requested_at),
      })),
    };
  });
  return {
    insert: (delivery, sealed) => insert.run(...insertValues(delivery, sealed)).changes === 1,
    read: (id) => read(id),
    list(filter) {
      const { where, params } = listWhere(filter, () => '?');
      const sql = `SELECT ${SUMMARY_COLUMNS} FROM ${t.deliveries} ${where}
                   ORDER BY created_at DESC, id DESC LIMIT ${listLimit(filter?.limit)}`;
      return (db.prepare(sql).all(...params) as Row[]).map(toSummary);
    },
    redeliver(id, now) {
      const row = stateOf.get(id) as Row | undefined;
      if (row === undefined) return { result: 'not_found' };
      if (row.state === 'pending') return { result: 'in_progress' };
      restart.run(now, id);
      insertRedelivery.run(id, Number(row.round) + 1, now);
      return { result: 'started', origin: String(row.origin) };
    },
  };
}
