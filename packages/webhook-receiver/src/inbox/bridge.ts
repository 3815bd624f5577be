import type { InboxQueryResult, InboxTransaction } from './types.js';

// Thrown inside the library's callback to make it roll back; never leaves the bridge.
const ROLLBACK = Symbol('inbox rollback');

/**
 * Turns a library's `transaction(callback)` (Drizzle, Prisma) into the inbox's begin / commit /
 * rollback: the callback stays open until the receiver decides, then returns (the library
 * commits) or throws (it rolls back). `begin` resolves once the library has opened the
 * transaction, and rejects when it could not.
 */
export function bridgeTransaction<Tx>(
  run: (body: (tx: Tx) => Promise<void>) => Promise<unknown>,
  query: (tx: Tx, sql: string, params: readonly unknown[]) => Promise<InboxQueryResult>,
): Promise<InboxTransaction<Tx>> {
  return new Promise((resolve, reject) => {
    let decide: (commit: boolean) => void = () => undefined;
    const decision = new Promise<boolean>((settle) => {
      decide = settle;
    });
    let opened = false;
    const outcome = (async () => {
      try {
        await run(async (tx) => {
          opened = true;
          const finish = (commit: boolean) => {
            decide(commit);
            return outcome;
          };
          resolve({
            tx,
            query: (sql, params) => query(tx, sql, params),
            commit: () => finish(true),
            rollback: () => finish(false),
          });
          if (!(await decision)) throw ROLLBACK;
        });
      } catch (error) {
        if (error === ROLLBACK) return;
        if (!opened) reject(error);
        throw error;
      }
    })();
    // Before the transaction opened, the failure went to `reject`; afterwards to commit/rollback.
    outcome.catch(() => undefined);
  });
}

/** Rows and affected count of a result in any of the shapes drivers return. */
export function normalizeResult(result: unknown, affected: (value: unknown) => number): InboxQueryResult {
  // mysql2 (and libraries over it) answer [rows or header, fields], fields undefined for a write.
  const pair = Array.isArray(result) && result.length === 2 && (result[1] === undefined || Array.isArray(result[1]));
  const first: unknown = pair ? result[0] : result;
  if (Array.isArray(first)) return { rows: first as Record<string, unknown>[], affected: first.length };
  const rows = (first as { rows?: unknown } | null)?.rows;
  return { rows: Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [], affected: affected(first) };
}
