import { WebhookError } from '../../webhook-error.js';
import { normalizeResult } from '../bridge.js';
import { defineInbox } from '../define-inbox.js';
import { affectedOf } from '../placeholders.js';
import type { Inbox, InboxOptions, InboxTransaction } from '../types.js';

/** What the inbox uses of a `mysql2/promise` pool connection (structural). */
export interface Mysql2ConnectionLike {
  query(sql: string, values?: unknown): Promise<unknown>;
  beginTransaction(): Promise<unknown>;
  commit(): Promise<unknown>;
  rollback(): Promise<unknown>;
  release(): void;
  destroy(): void;
  /**
   * The core connection under the promise wrapper: `getConnection()` wraps it anew on each
   * checkout, so only this object says which server session a checkout got.
   */
  readonly connection?: object;
}

/** What the inbox uses of a `mysql2/promise` pool. */
export interface Mysql2PoolLike<Connection extends Mysql2ConnectionLike> {
  getConnection(): Promise<Connection>;
  /** The core pool; its `resetOnRelease` drops session settings at each release. */
  readonly pool?: { readonly config?: { readonly resetOnRelease?: boolean } };
}

function ended(): Error {
  return new Error('inbox: this transaction has ended (the receiver answered 503 at the handler deadline)');
}

async function begin<C extends Mysql2ConnectionLike>(
  pool: Mysql2PoolLike<C>,
  keepsSettings: boolean,
): Promise<InboxTransaction<C>> {
  const connection = await pool.getConnection();
  try {
    await connection.beginTransaction();
  } catch (error) {
    connection.destroy();
    throw error;
  }
  let open = true;
  const finish = async (commit: boolean) => {
    if (!open) throw ended();
    open = false;
    try {
      await (commit ? connection.commit() : connection.rollback());
    } catch (error) {
      connection.destroy();
      throw error;
    }
    connection.release();
  };
  return {
    tx: connection,
    ...(keepsSettings && { connection: connection.connection ?? connection }),
    async query(sql, params) {
      if (!open) throw ended();
      return normalizeResult(await connection.query(sql, params), affectedOf);
    },
    commit: () => finish(true),
    rollback: () => finish(false),
    abandon() {
      if (!open) return;
      open = false;
      // A closed connection ends its transaction on the server: rolled back.
      connection.destroy();
    },
  };
}

/**
 * A transactional inbox on MySQL or MariaDB through `mysql2/promise` (InnoDB). The handler gets
 * the pool connection as `context.tx`: write with `context.tx.query(…)` and never release it.
 * The lock timeout is set with `SET SESSION innodb_lock_wait_timeout` (whole seconds), which
 * stays on the pooled connection: it costs a round trip the first time a connection serves an
 * inbox with that timeout, not on every delivery. So nothing else on the pool's connections, the
 * handler included, may change that setting or `reset()` / `changeUser()` a connection. A pool
 * made with `resetOnRelease: true` drops session settings at each release: the timeout is then
 * sent on every delivery.
 *
 * @example
 * import mysql from 'mysql2/promise';
 * const inbox = mysql2Inbox(mysql.createPool(process.env.DATABASE_URL));
 */
export function mysql2Inbox<C extends Mysql2ConnectionLike>(pool: Mysql2PoolLike<C>, options?: InboxOptions): Inbox<C> {
  if (typeof pool?.getConnection !== 'function')
    throw new WebhookError('invalid_option', 'mysql2Inbox: pool must be a mysql2/promise pool (with getConnection()).');
  const keepsSettings = pool.pool?.config?.resetOnRelease !== true;
  return defineInbox({ dialect: 'mysql', begin: () => begin(pool, keepsSettings) }, options);
}
