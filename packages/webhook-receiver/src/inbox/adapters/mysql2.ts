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
}

/** What the inbox uses of a `mysql2/promise` pool. */
export interface Mysql2PoolLike<Connection extends Mysql2ConnectionLike> {
  getConnection(): Promise<Connection>;
}

function ended(): Error {
  return new Error('inbox: this transaction has ended (the receiver answered 503 at the handler deadline)');
}

async function begin<C extends Mysql2ConnectionLike>(pool: Mysql2PoolLike<C>): Promise<InboxTransaction<C>> {
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
 * The lock timeout is set with `SET SESSION innodb_lock_wait_timeout` (whole seconds) and stays
 * on that pooled connection.
 *
 * @example
 * import mysql from 'mysql2/promise';
 * const inbox = mysql2Inbox(mysql.createPool(process.env.DATABASE_URL));
 */
export function mysql2Inbox<C extends Mysql2ConnectionLike>(pool: Mysql2PoolLike<C>, options?: InboxOptions): Inbox<C> {
  if (typeof pool?.getConnection !== 'function')
    throw new WebhookError('invalid_option', 'mysql2Inbox: pool must be a mysql2/promise pool (with getConnection()).');
  return defineInbox({ dialect: 'mysql', begin: () => begin(pool) }, options);
}
