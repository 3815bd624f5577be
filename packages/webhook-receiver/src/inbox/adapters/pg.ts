import { WebhookError } from '../../webhook-error.js';
import { defineInbox } from '../define-inbox.js';
import { numberPlaceholders } from '../placeholders.js';
import { rolledBackError } from '../rolled-back.js';
import type { Inbox, InboxOpening, InboxOptions, InboxTransaction } from '../types.js';
import { beginBatch, isBatchable } from './pg-batch.js';

/** What the inbox uses of a `pg` `PoolClient` (structural: any compatible client fits). */
export interface PgClientLike {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null; command?: string }>;
  /** `release(error)` destroys the connection instead of returning it to the pool. */
  release(destroy?: Error | boolean): void;
}

/** What the inbox uses of a `pg` `Pool`. */
export interface PgPoolLike<Client extends PgClientLike> {
  connect(): Promise<Client>;
}

function ended(): Error {
  return new Error('inbox: this transaction has ended (the receiver answered 503 at the handler deadline)');
}

async function begin<Client extends PgClientLike>(pool: PgPoolLike<Client>): Promise<InboxTransaction<Client>> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
  } catch (error) {
    client.release(error instanceof Error ? error : true);
    throw error;
  }
  return transactionOn(client);
}

/**
 * BEGIN and the inbox's first statement in one round trip on node-postgres's own client; on
 * another pg-compatible client, one after the other. A failure rolls back before rejecting.
 */
async function beginWith<Client extends PgClientLike>(
  pool: PgPoolLike<Client>,
  sql: string,
  params: readonly unknown[],
): Promise<InboxOpening<Client>> {
  const client = await pool.connect();
  if (!isBatchable(client)) {
    const transaction = await begin({ connect: async () => client });
    try {
      return { transaction, result: await transaction.query(sql, params) };
    } catch (error) {
      await transaction.rollback().catch(() => undefined);
      throw error;
    }
  }
  try {
    const result = await beginBatch(client, numberPlaceholders(sql), params);
    return { transaction: transactionOn(client), result };
  } catch (error) {
    // The transaction is aborted (or never began): end it before the client goes back to the pool.
    await client.query('ROLLBACK').then(
      () => client.release(),
      (failure: unknown) => client.release(failure instanceof Error ? failure : true),
    );
    throw error;
  }
}

function transactionOn<Client extends PgClientLike>(client: Client): InboxTransaction<Client> {
  let open = true;
  const finish = async (statement: 'COMMIT' | 'ROLLBACK') => {
    if (!open) throw ended();
    open = false;
    let answer: Awaited<ReturnType<Client['query']>>;
    try {
      answer = (await client.query(statement)) as Awaited<ReturnType<Client['query']>>;
    } catch (error) {
      client.release(error instanceof Error ? error : true);
      throw error;
    }
    client.release();
    // COMMIT of a transaction aborted by a failed statement answers ROLLBACK, without an error.
    if (statement === 'COMMIT' && answer.command === 'ROLLBACK')
      throw rolledBackError('inbox: the transaction was aborted by a failed statement; COMMIT rolled it back');
  };
  return {
    tx: client,
    commitChecked: true,
    async query(sql, params) {
      if (!open) throw ended();
      const result = await client.query(numberPlaceholders(sql), params as unknown[]);
      return { rows: result.rows as Record<string, unknown>[], affected: result.rowCount ?? 0 };
    },
    commit: () => finish('COMMIT'),
    rollback: () => finish('ROLLBACK'),
    abandon() {
      if (!open) return;
      open = false;
      // Closing the connection ends the transaction on the server (rolled back), and the
      // handler's late queries on this client fail instead of landing anywhere.
      client.release(ended());
    },
  };
}

/**
 * A transactional inbox on Postgres through `pg` (`Pool`). Each delivery takes a client from
 * the pool and opens a transaction; the handler gets that client as `context.tx` — run your
 * writes with `context.tx.query(…)` and never release it (the receiver does).
 *
 * @example
 * import pg from 'pg';
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * const inbox = pgInbox(pool);
 * await migrateInbox(inbox);
 * createWebhookReceiver({ authKeys, inbox, onEvent: async (event, { tx }) => {
 *   if (event.status === 'APPROVED') await tx.query('UPDATE accounts SET active = true WHERE kyc_session = $1', [event.sessionId]);
 * } });
 */
export function pgInbox<Client extends PgClientLike>(pool: PgPoolLike<Client>, options?: InboxOptions): Inbox<Client> {
  if (typeof pool?.connect !== 'function')
    throw new WebhookError('invalid_option', 'pgInbox: pool must be a pg Pool (with connect()).');
  return defineInbox(
    { dialect: 'postgres', begin: () => begin(pool), beginWith: (sql, params) => beginWith(pool, sql, params) },
    options,
  );
}
