import { WebhookError } from '../../webhook-error.js';
import { defineInbox } from '../define-inbox.js';
import { numberPlaceholders } from '../placeholders.js';
import type { Inbox, InboxDialect, InboxOptions } from '../types.js';

/**
 * What the inbox uses of a Kysely controlled transaction (structural: these declarations never
 * load Kysely's, and this module never loads Kysely).
 */
export interface KyselyTransactionLike {
  executeQuery(query: never): Promise<{ rows: unknown[]; numAffectedRows?: bigint | undefined }>;
  commit(): { execute(): Promise<void> };
  rollback(): { execute(): Promise<void> };
}

/** What the inbox uses of a `Kysely` instance (0.28 or later: `startTransaction`). */
export interface KyselyLike<Trx extends KyselyTransactionLike> {
  startTransaction(): { execute(): Promise<Trx> };
}

let queries = 0;

/**
 * What Kysely's `CompiledQuery.raw(sql, parameters)` builds: the text, its parameters, a raw
 * operation node, and an id plugins key their state on.
 */
function compiledQuery(sql: string, parameters: readonly unknown[]) {
  return Object.freeze({
    sql,
    parameters: Object.freeze([...parameters]),
    query: Object.freeze({ kind: 'RawNode', sqlFragments: Object.freeze([sql]), parameters: Object.freeze([]) }),
    queryId: Object.freeze({ queryId: `kyc-inbox-${++queries}` }),
  });
}

/** Options of {@link kyselyInbox}: the inbox's, and the SQL family of the Kysely dialect. */
export interface KyselyInboxOptions extends InboxOptions {
  /** Default `'postgres'`; `'mysql'` for Kysely's MysqlDialect (mysql2). */
  readonly dialect?: InboxDialect;
}

/**
 * A transactional inbox through Kysely. The handler gets the controlled transaction as
 * `context.tx` (`tx.updateTable('accounts')…`); Kysely refuses it once committed or rolled back.
 *
 * On MySQL/MariaDB the lock timeout (`SET SESSION innodb_lock_wait_timeout`) is sent in every
 * delivery's transaction, one round trip more than `mysql2Inbox` or `knexInbox`, which send it
 * once per pooled connection. Skipping it safely would take the server connection under the
 * transaction, which Kysely reaches only through `getExecutor()` (marked internal), and knowing
 * that the pool keeps session settings between checkouts, which Kysely does not show at all: the
 * mysql2 pool (and its `resetOnRelease`) is private to the driver, and `onReserveConnection`
 * may run anything at each checkout. A connection taken for set after a reset had dropped the
 * setting would wait on a held event for the server's own timeout (50 s by default), not 409.
 *
 * @example
 * const inbox = kyselyInbox(db); // db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) })
 */
export function kyselyInbox<Trx extends KyselyTransactionLike>(
  db: KyselyLike<Trx>,
  options: KyselyInboxOptions = {},
): Inbox<Trx> {
  if (typeof db?.startTransaction !== 'function')
    throw new WebhookError('invalid_option', 'kyselyInbox: pass a Kysely instance (0.28 or later).');
  const { dialect = 'postgres', ...inboxOptions } = options;
  const text = dialect === 'postgres' ? numberPlaceholders : (sql: string) => sql;
  return defineInbox(
    {
      dialect,
      async begin() {
        const trx = await db.startTransaction().execute();
        return {
          tx: trx,
          async query(sql, params) {
            const result = await trx.executeQuery(compiledQuery(text(sql), params) as never);
            return { rows: result.rows as Record<string, unknown>[], affected: Number(result.numAffectedRows ?? 0) };
          },
          commit: () => trx.commit().execute(),
          rollback: () => trx.rollback().execute(),
        };
      },
    },
    inboxOptions,
  );
}
