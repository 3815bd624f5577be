import type { Knex } from 'knex';
import { WebhookError } from '../../webhook-error.js';
import { normalizeResult } from '../bridge.js';
import { defineInbox } from '../define-inbox.js';
import { affectedOf } from '../placeholders.js';
import type { Inbox, InboxDialect, InboxOptions } from '../types.js';

/**
 * What the inbox uses of a Knex instance: `transaction()` and the configured client. Typed with
 * Knex's own types (a type-only import: nothing of Knex is loaded by this module), because
 * `transaction` is overloaded and a structural type would lose `Knex.Transaction` for `context.tx`.
 */
export type KnexLike = Pick<Knex, 'transaction'> & { readonly client: { readonly config: Knex.Config } };

function dialectOf(knex: KnexLike): InboxDialect {
  const client = String(knex.client?.config?.client ?? '');
  if (/^(pg|postgres|postgresql|pgnative)$/.test(client)) return 'postgres';
  if (/^mysql2?$/.test(client)) return 'mysql';
  throw new WebhookError('invalid_option', 'knexInbox: the Knex client must be pg or mysql2.');
}

/** What Knex's `connectionPool` option may hold: a tarn-like pool, or a native mysql2 pool. */
interface NativePoolLike {
  readonly acquire?: unknown;
  readonly config?: { readonly resetOnRelease?: unknown };
  readonly pool?: { readonly config?: { readonly resetOnRelease?: unknown } };
}

/**
 * Whether a connection keeps its session settings from one checkout to the next. Knex's own
 * pool (tarn) and any tarn-like pool given as `connectionPool` hand connections back untouched;
 * a native mysql2 pool does only when its config says `resetOnRelease: false`. A native pool
 * whose config we cannot read (the `mysql` driver's, a pool cluster) counts as resetting: the
 * lock timeout is then sent on every delivery, as before.
 */
function keepsSessionSettings(knex: KnexLike): boolean {
  const external = (knex.client.config as { readonly connectionPool?: NativePoolLike }).connectionPool;
  if (external === undefined || external === null) return true;
  if (typeof external.acquire === 'function') return true;
  // mysql2/promise pools carry the core pool (and its config) as `.pool`; Knex unwraps it the same way.
  return (external.pool ?? external).config?.resetOnRelease === false;
}

/**
 * The server connection under a Knex transaction. A transaction's client acquires only the
 * connection the transaction holds (no pool checkout, no round trip), and that object is the
 * driver connection itself, the one Knex's pool keeps for the connection's life: the same at
 * every checkout. `client.acquireConnection()` is declared in Knex's public types, and is what
 * every query on `trx` runs through. Should it ever fail, the delivery goes on without it: the
 * lock timeout is then sent in its transaction, as it was before.
 */
async function serverConnectionOf(trx: Knex.Transaction): Promise<object | undefined> {
  const client = trx.client as { readonly acquireConnection?: () => unknown } | undefined;
  if (trx.isTransaction !== true || typeof client?.acquireConnection !== 'function') return undefined;
  const connection = await Promise.resolve(client.acquireConnection()).catch(() => undefined);
  return typeof connection === 'object' && connection !== null ? connection : undefined;
}

/**
 * A transactional inbox through Knex (pg or mysql2). The handler gets the Knex transaction as
 * `context.tx` (`trx('accounts').update(…)`); Knex refuses queries on it once it has ended.
 *
 * On MySQL/MariaDB the lock timeout (`SET SESSION innodb_lock_wait_timeout`) stays on the pooled
 * connection: it is sent the first time a connection serves an inbox with that timeout, not on
 * every delivery. So nothing else on the pool, the handler included, may change that setting or
 * reset a connection. With a native mysql2 pool as `connectionPool` made with
 * `resetOnRelease: true`, which drops session settings at each release, it is sent every time.
 *
 * @example
 * const inbox = knexInbox(knex({ client: 'pg', connection: process.env.DATABASE_URL }));
 */
export function knexInbox(knex: KnexLike, options?: InboxOptions): Inbox<Knex.Transaction> {
  if (typeof knex?.transaction !== 'function')
    throw new WebhookError('invalid_option', 'knexInbox: pass a Knex instance.');
  const dialect = dialectOf(knex);
  // Only MySQL's lock timeout is a session setting; Postgres's is the transaction's own.
  const keepsSettings = dialect === 'mysql' && keepsSessionSettings(knex);
  return defineInbox(
    {
      dialect,
      async begin() {
        const trx = await knex.transaction();
        const connection = keepsSettings ? await serverConnectionOf(trx) : undefined;
        return {
          tx: trx,
          ...(connection !== undefined && { connection }),
          // Knex turns `?` into the driver's placeholders itself.
          query: async (sql, params) =>
            normalizeResult(await trx.raw(sql, [...params] as Knex.RawBinding[]), affectedOf),
          commit: async () => {
            await trx.commit();
          },
          rollback: async () => {
            await trx.rollback();
          },
        };
      },
    },
    options,
  );
}
