/**
 * SQLite result codes that mean the file cannot be written at all right now, whatever the write:
 * a full disk, an I/O error, a lock held elsewhere, a file made read-only or gone. A batch that
 * fails with one of these is held and tried again later, never write by write (each would fail
 * the same way while holding the event loop) and never dropped.
 */
const OUTAGE_CODES = /^SQLITE_(FULL|IOERR|BUSY|LOCKED|READONLY|CANTOPEN|PROTOCOL|NOLFS)/;

export function isStoreOutage(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && OUTAGE_CODES.test(code);
}

/** A lock another connection holds (the checkpointer's, a reader's): usually gone in milliseconds. */
export function isLockContention(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^SQLITE_(BUSY|LOCKED)/.test(code);
}
