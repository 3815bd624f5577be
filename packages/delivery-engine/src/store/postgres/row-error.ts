/**
 * SQLSTATE classes of errors one row's values can cause: 22 (data exception: a character the
 * database refuses, a number out of range, bad JSON) and 23 (integrity constraint violation).
 * A batch that fails with one of these is worth writing again row by row; anything else (a lost
 * connection, a full disk, a cancelled statement) would fail every row again.
 */
const ROW_CLASSES = new Set(['22', '23']);

/** Whether `error` (or the error it wraps, as the store's `store_error` does) is a row's fault. */
export function isRowError(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && ROW_CLASSES.has(code.slice(0, 2))) return true;
    current = current.cause;
  }
  return false;
}
