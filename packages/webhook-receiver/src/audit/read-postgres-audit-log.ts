import type { PostgresLikeClient } from '../idempotency/postgres.js';
import { auditTableNames, type PostgresAuditOptions } from './postgres-audit-table.js';
import type { AuditEntry } from './types.js';

interface Row {
  seq: string | number;
  prev_hash: string;
  hash: string;
  session_id: string | null;
  webhook_id: string | null;
  outcome: string;
  entry: AuditEntry | string;
}

const PAGE = 1000;

/** The columns beside the entry must say what the entry says, or someone changed one of them. */
function columnsAgree(row: Row, entry: AuditEntry): boolean {
  const text = (value: string | null) => (value === null ? null : value.replaceAll('\u0000', '\uFFFD'));
  return (
    Number(row.seq) === entry.seq &&
    row.prev_hash === entry.prevHash &&
    row.hash === entry.hash &&
    row.outcome === entry.outcome &&
    row.session_id === text(entry.sessionId) &&
    row.webhook_id === text(entry.webhookId)
  );
}

/**
 * The entries of a Postgres audit table in chain order, a page at a time, for
 * `verifyAuditLog`. An entry whose lookup columns (`seq`, hashes, session id, event id,
 * outcome) were changed apart from it comes out with a hash that cannot match, so the
 * verification stops there.
 *
 * @example
 * const result = await verifyAuditLog(readPostgresAuditLog(pool));
 */
export async function* readPostgresAuditLog(
  client: PostgresLikeClient,
  options: PostgresAuditOptions = {},
): AsyncGenerator<AuditEntry> {
  const { table } = auditTableNames(options, 'readPostgresAuditLog');
  const sql = `SELECT seq, prev_hash, hash, session_id, webhook_id, outcome, entry FROM ${table}
    WHERE seq > $1 ORDER BY seq LIMIT ${PAGE}`;
  let after = 0;
  for (;;) {
    const rows = (await client.query(sql, [after])).rows as Row[];
    for (const row of rows) {
      const entry = (typeof row.entry === 'string' ? JSON.parse(row.entry) : row.entry) as AuditEntry;
      yield columnsAgree(row, entry) ? entry : { ...entry, hash: `columns changed: ${row.hash}` };
      after = Number(row.seq);
    }
    if (rows.length < PAGE) return;
  }
}
