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
 * Whether this inbox still prepares its opening statement. A server connection that loses its
 * prepared statements behind the client's back (PgBouncer in transaction mode without
 * `max_prepared_statements`, `DEALLOCATE ALL` or `DISCARD ALL` on the connection) answers
 * 26000; a name already taken answers 42P05. Either way the inbox stops preparing and tries once
 * more, unprepared: the delivery goes on, and so do the later ones.
 */
interface Preparing {
  enabled: boolean;
}

const LOST_PREPARED_STATEMENT = new Set(['26000', '42P05']);

/**
 * BEGIN and the inbox's first statement in one round trip on node-postgres's own client; on
 * another pg-compatible client, one after the other. A failure rolls back before rejecting.
 */
async function beginWith<Client extends PgClientLike>(
  pool: PgPoolLike<Client>,
  preparing: Preparing,
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
  const prepared = preparing.enabled;
  try {
    const result = await beginBatch(client, numberPlaceholders(sql), params, prepared);
    return { transaction: transactionOn(client), result };
  } catch (error) {
    // The transaction is aborted (or never began): end it before the client goes back to the pool.
    await client.query('ROLLBACK').then(
      () => client.release(),
      (failure: unknown) => client.release(failure instanceof Error ? failure : true),
    );
    if (prepared && LOST_PREPARED_STATEMENT.has(String((error as { code?: unknown }).code))) {
      preparing.enabled = false;
      return beginWith(pool, preparing, sql, params);
    }
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

/** Options of {@link pgInbox}. */
export interface PgInboxOptions extends InboxOptions {
  /**
   * Prepare the inbox's opening statement once per connection (default `true`), so the server
   * does not parse and plan it at every delivery. Set `false` behind a pooler that cannot carry
   * prepared statements; without it, the inbox finds out at the first delivery that fails for
   * that reason, and stops preparing (that delivery still succeeds).
   */
  readonly preparedStatements?: boolean;
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
export function pgInbox<Client extends PgClientLike>(
  pool: PgPoolLike<Client>,
  options?: PgInboxOptions,
): Inbox<Client> {
  if (typeof pool?.connect !== 'function')
    throw new WebhookError('invalid_option', 'pgInbox: pool must be a pg Pool (with connect()).');
  const preparing: Preparing = { enabled: options?.preparedStatements !== false };
  return defineInbox(
    {
      dialect: 'postgres',
      begin: () => begin(pool),
      beginWith: (sql, params) => beginWith(pool, preparing, sql, params),
    },
    options,
  );
}
