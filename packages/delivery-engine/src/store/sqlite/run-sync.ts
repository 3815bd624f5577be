import { DeliveryEngineError } from '../../delivery-engine-error.js';
import type { InsertOptions } from '../store.js';

/**
 * better-sqlite3 is synchronous: running each store call through this keeps a thrown SQLite
 * error a rejected promise with a typed error instead of an exception in the caller's stack.
 */
export function runSync<T>(what: string, fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(wrapSqliteError(what, error));
  }
}

export function wrapSqliteError(what: string, error: unknown): DeliveryEngineError {
  if (error instanceof DeliveryEngineError) return error;
  return new DeliveryEngineError('store_error', `sqlite store: ${what} failed`, { cause: error });
}

/** Ignoring a caller's transaction would commit the event on its own, outside it. */
export function refuseTransaction(options: InsertOptions<unknown> | undefined): void {
  if (options?.transaction === undefined) return;
  throw new DeliveryEngineError(
    'invalid_option',
    'enqueue: the SQLite store cannot join a caller transaction (options.transaction); use the Postgres store for an outbox, or enqueue after your commit',
  );
}
