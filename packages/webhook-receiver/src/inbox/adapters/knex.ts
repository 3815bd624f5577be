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

/**
 * A transactional inbox through Knex (pg or mysql2). The handler gets the Knex transaction as
 * `context.tx` (`trx('accounts').update(…)`); Knex refuses queries on it once it has ended.
 *
 * @example
 * const inbox = knexInbox(knex({ client: 'pg', connection: process.env.DATABASE_URL }));
 */
export function knexInbox(knex: KnexLike, options?: InboxOptions): Inbox<Knex.Transaction> {
  if (typeof knex?.transaction !== 'function')
    throw new WebhookError('invalid_option', 'knexInbox: pass a Knex instance.');
  const dialect = dialectOf(knex);
  return defineInbox(
    {
      dialect,
      async begin() {
        const trx = await knex.transaction();
        return {
          tx: trx,
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
