import { type SQL, sql } from 'drizzle-orm';
import { WebhookError } from '../../webhook-error.js';
import { bridgeTransaction, normalizeResult } from '../bridge.js';
import { defineInbox } from '../define-inbox.js';
import { affectedOf } from '../placeholders.js';
import type { Inbox, InboxDialect, InboxOptions } from '../types.js';

/**
 * What the inbox uses of a Drizzle transaction (structural). The query's type is left open so
 * that these declarations never load Drizzle's own (which need every driver's types to check).
 */
export interface DrizzleTransactionLike {
  execute(query: never): PromiseLike<unknown>;
}

/** What the inbox uses of a Drizzle database: `transaction(callback)`. */
export interface DrizzleLike<Tx extends DrizzleTransactionLike> {
  transaction(run: (tx: Tx) => Promise<void>): Promise<unknown>;
}

/** Options of {@link drizzleInbox}: the inbox's, and the SQL family of the Drizzle driver. */
export interface DrizzleInboxOptions extends InboxOptions {
  /** Default `'postgres'` (node-postgres, postgres.js); `'mysql'` for drizzle-orm/mysql2. */
  readonly dialect?: InboxDialect;
}

const statements = /* @__PURE__ */ new Map<string, string[]>();

/** A `?`-placeholder statement as Drizzle SQL: the text split once, each value a bound parameter. */
function toSql(text: string, params: readonly unknown[]): SQL {
  let parts = statements.get(text);
  if (parts === undefined) {
    parts = text.split('?');
    if (statements.size < 256) statements.set(text, parts);
  }
  const chunks: SQL[] = [];
  parts.forEach((part, index) => {
    chunks.push(sql.raw(part));
    if (index < params.length) chunks.push(sql`${params[index]}`);
  });
  return sql.join(chunks);
}

/**
 * A transactional inbox through Drizzle ORM: the receiver runs `db.transaction(…)` and hands its
 * `tx` to the handler as `context.tx` (`tx.update(accounts)…`). Drizzle's transactions take a
 * callback, so a handler that outlives the deadline is rolled back when it settles; stop your
 * work when `context.signal` aborts, and use only `context.tx` for your writes.
 *
 * On MySQL/MariaDB (drizzle-orm/mysql2) the lock timeout (`SET SESSION
 * innodb_lock_wait_timeout`) is sent in every delivery's transaction, one round trip more than
 * `mysql2Inbox` or `knexInbox`, which send it once per pooled connection: Drizzle keeps the
 * transaction's pool connection on its session (internal) in a private field, and that is the
 * per-checkout mysql2/promise wrapper, not one object per server connection.
 *
 * @example
 * const inbox = drizzleInbox(drizzle(pool));
 */
export function drizzleInbox<Tx extends DrizzleTransactionLike>(
  db: DrizzleLike<Tx>,
  options: DrizzleInboxOptions = {},
): Inbox<Tx> {
  if (typeof db?.transaction !== 'function')
    throw new WebhookError('invalid_option', 'drizzleInbox: pass a Drizzle database (with transaction()).');
  const { dialect = 'postgres', ...inboxOptions } = options;
  return defineInbox(
    {
      dialect,
      begin: () =>
        bridgeTransaction<Tx>(
          (body) => db.transaction(body),
          async (tx, text, params) => normalizeResult(await tx.execute(toSql(text, params) as never), affectedOf),
        ),
    },
    inboxOptions,
  );
}
