/**
 * What a database error means to the inbox, read from the codes drivers and libraries carry:
 * `pg` and Knex pass the server's SQLSTATE as `code`; mysql2 sets `errno` and a `code` name;
 * Drizzle wraps the driver's error in `cause`; Prisma puts it under `meta`. The chain is walked
 * a few levels deep, never by matching message text.
 */
export type DatabaseErrorKind = 'deadlock' | 'lock_timeout' | 'missing_table' | 'other';

// 40P01 (Postgres), ER_LOCK_DEADLOCK / 1213 (InnoDB): this transaction was chosen as a deadlock's
// victim and rolled back whole; the other side goes on, so trying again at once can succeed.
const DEADLOCK = new Set<unknown>(['40P01', 'ER_LOCK_DEADLOCK', 1213]);
// 55P03 lock_not_available, 40001 serialization failure, 1205 lock wait timeout: retry later.
const BUSY = new Set<unknown>(['55P03', '40001', 'ER_LOCK_WAIT_TIMEOUT', 1205]);
const MISSING = new Set<unknown>(['42P01', 'ER_NO_SUCH_TABLE', 1146]);
const FIELDS = ['code', 'errno', 'originalCode', 'sqlState'] as const;
const NESTED = ['cause', 'meta', 'driverAdapterError', 'original'] as const;

function collect(value: unknown, found: unknown[], depth: number): void {
  if (typeof value !== 'object' || value === null || depth > 5) return;
  const record = value as Record<string, unknown>;
  for (const field of FIELDS) if (record[field] !== undefined) found.push(record[field]);
  for (const field of NESTED) collect(record[field], found, depth + 1);
}

export function classifyDatabaseError(error: unknown): DatabaseErrorKind {
  const codes: unknown[] = [];
  collect(error, codes, 0);
  if (codes.some((code) => DEADLOCK.has(code))) return 'deadlock';
  if (codes.some((code) => BUSY.has(code))) return 'lock_timeout';
  if (codes.some((code) => MISSING.has(code))) return 'missing_table';
  return 'other';
}
