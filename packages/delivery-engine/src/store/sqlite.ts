import Database from 'better-sqlite3';
import { DeliveryEngineError } from '../delivery-engine-error.js';
import { groupCommit } from './group-commit.js';
import {
  ATTEMPT_COLUMNS,
  attemptValues,
  CLAIM_COLUMNS,
  INSERT_COLUMNS,
  insertValues,
  listWhere,
  queueStatsSql,
  SUMMARY_COLUMNS,
  toAttempt,
  toClaim,
  toQueueStats,
  toSummary,
} from './rows.js';
import { migrationsTable, pendingMigrations, tableNames } from './schema.js';
import {
  type ClaimRequest,
  type DeliveryFilter,
  type DeliveryRecord,
  type DeliveryStore,
  type DeliverySummary,
  listLimit,
  type RedeliverResult,
} from './store.js';
import { withinOriginRoom } from './within-origin-room.js';

/** Options of {@link sqliteDeliveryStore}. */
export interface SqliteDeliveryStoreOptions {
  /** Database file; created if missing. `:memory:` works for a single engine in one process. */
  readonly path: string;
  /** Prefix of every table name (letters, digits, `_`), to share one file with other data. */
  readonly tablePrefix?: string;
  /** How long a writer waits for another process's lock before failing (default 5000 ms). */
  readonly busyTimeoutMs?: number;
}

type Row = Record<string, unknown>;

const transactionRefused = () =>
  new DeliveryEngineError(
    'invalid_option',
    'enqueue: the SQLite store cannot join a caller transaction (options.transaction); use the Postgres store for an outbox, or enqueue after your commit',
  );

/** Applies the pending numbered migrations in one `BEGIN IMMEDIATE` (processes sharing the file take turns). */
function migrator(db: Database.Database, t: ReturnType<typeof tableNames>): () => void {
  const apply = db.transaction(() => {
    db.exec(migrationsTable(t));
    const rows = db.prepare(`SELECT version FROM ${t.migrations}`).all() as Row[];
    for (const migration of pendingMigrations(rows.map((row) => Number(row.version)))) {
      for (const statement of migration.sqlite(t)) db.exec(statement);
      db.prepare(`INSERT INTO ${t.migrations} (version, description, applied_at) VALUES (?, ?, ?)`).run(
        migration.version,
        migration.description,
        Date.now(),
      );
    }
  });
  return () => apply.immediate();
}

/**
 * The embedded default store: one SQLite file in WAL mode with `synchronous=NORMAL`. A
 * committed event survives a process crash (`kill -9`); the last transactions before a power
 * loss or OS crash may be lost, which is the price of ~3× the write rate of `FULL`. Claims run
 * in `BEGIN IMMEDIATE` with `UPDATE … RETURNING`, so several processes on one host may share
 * the file safely.
 *
 * @example
 * ```ts
 * const engine = createDeliveryEngine({ store: sqliteDeliveryStore({ path: './webhooks.db' }) });
 * ```
 */
export function sqliteDeliveryStore(options: SqliteDeliveryStoreOptions): DeliveryStore<never> {
  if (typeof options?.path !== 'string' || options.path === '') {
    throw new DeliveryEngineError('invalid_option', 'sqliteDeliveryStore: `path` must be a non-empty string');
  }
  const t = tableNames(options.tablePrefix ?? '');
  let db: Database.Database;
  try {
    db = new Database(options.path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
  } catch (error) {
    throw new DeliveryEngineError('store_error', `sqliteDeliveryStore: cannot open ${options.path}`, { cause: error });
  }
  // The statements below are prepared against the tables, so the migrations run first, here.
  const migrateNow = migrator(db, t);
  try {
    migrateNow();
  } catch (error) {
    db.close();
    if (error instanceof DeliveryEngineError) throw error;
    throw new DeliveryEngineError('store_error', `sqliteDeliveryStore: cannot migrate ${options.path}`, {
      cause: error,
    });
  }

  const insert = db.prepare(
    `INSERT INTO ${t.deliveries} (${INSERT_COLUMNS})
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
  );
  const dueCandidates = db.prepare(
    `SELECT id, origin FROM ${t.deliveries}
      WHERE state = 'pending' AND next_attempt_at <= ? AND origin NOT IN (SELECT value FROM json_each(?))
      ORDER BY next_attempt_at LIMIT ?`,
  );
  const lease = db.prepare(
    `UPDATE ${t.deliveries}
        SET lost_leases = lost_leases + leased, leased = 1, lease_token = lease_token + 1,
            due_at = next_attempt_at, next_attempt_at = ?
      WHERE id IN (SELECT value FROM json_each(?))
      RETURNING ${CLAIM_COLUMNS}`,
  );
  const complete = db.prepare(
    `UPDATE ${t.deliveries}
        SET state = @state, attempts = attempts + 1, round_attempts = round_attempts + 1,
            next_attempt_at = @next, finished_at = @finished, leased = 0, lost_leases = 0,
            last_outcome = @outcome, last_status = @status
      WHERE id = @id AND lease_token = @token AND leased = 1 AND state = 'pending'`,
  );
  const insertAttempt = db.prepare(
    `INSERT INTO ${t.attempts} (${ATTEMPT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const release = db.prepare(
    `UPDATE ${t.deliveries} SET leased = 0, next_attempt_at = @dueAt
      WHERE id = @id AND lease_token = @token AND leased = 1 AND state = 'pending'`,
  );
  const nextDue = db.prepare(
    `SELECT next_attempt_at FROM ${t.deliveries}
      WHERE state = 'pending' AND origin NOT IN (SELECT value FROM json_each(?))
      ORDER BY next_attempt_at LIMIT 1`,
  );
  const stats = db.prepare(queueStatsSql(t.deliveries, '@now'));
  const getOne = db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM ${t.deliveries} WHERE id = ?`);
  const getAttempts = db.prepare(`SELECT * FROM ${t.attempts} WHERE delivery_id = ? ORDER BY attempt`);
  const getRedeliveries = db.prepare(
    `SELECT round, requested_at FROM ${t.redeliveries} WHERE delivery_id = ? ORDER BY round`,
  );
  const stateOf = db.prepare(`SELECT state, round FROM ${t.deliveries} WHERE id = ?`);
  const restart = db.prepare(
    `UPDATE ${t.deliveries}
        SET state = 'pending', round = round + 1, round_attempts = 0, next_attempt_at = ?,
            finished_at = NULL, leased = 0, lost_leases = 0
      WHERE id = ?`,
  );
  const insertRedelivery = db.prepare(
    `INSERT INTO ${t.redeliveries} (delivery_id, round, requested_at) VALUES (?, ?, ?)`,
  );

  // One BEGIN IMMEDIATE: the rows read are still due and unleased when they are leased.
  const claimTx = db.transaction((r: ClaimRequest): Row[] => {
    const candidates = dueCandidates.all(r.now, JSON.stringify(r.excludeOrigins), r.limit) as {
      id: string;
      origin: string;
    }[];
    const ids = withinOriginRoom(candidates, r);
    return ids.length === 0 ? [] : (lease.all(r.now + r.leaseMs, JSON.stringify(ids)) as Row[]);
  });
  const completeOne = db.transaction((params: Row, attempt: unknown[]) => {
    if (complete.run(params).changes !== 1) return false;
    insertAttempt.run(...attempt);
    return true;
  });
  // Each item runs in its own savepoint (a nested better-sqlite3 transaction), so one bad row
  // fails only its own call; the batch commits once.
  const completeBatch = db.transaction((items: readonly [Row, unknown[]][]) =>
    items.map(([params, attempt]) => {
      try {
        return completeOne(params, attempt);
      } catch (error) {
        return error instanceof Error ? error : new Error(String(error));
      }
    }),
  );
  const completeGrouped = groupCommit(
    (items: readonly [Row, unknown[]][]) => completeBatch.immediate(items),
    (error) => new DeliveryEngineError('store_error', 'sqlite store: complete failed', { cause: error }),
  );
  const redeliverTx = db.transaction((id: string, now: number): RedeliverResult => {
    const row = stateOf.get(id) as Row | undefined;
    if (row === undefined) return 'not_found';
    if (row.state === 'pending') return 'in_progress';
    restart.run(now, id);
    insertRedelivery.run(id, Number(row.round) + 1, now);
    return 'started';
  });

  // One read transaction (deferred: it takes no write lock), so the row and its attempt log come
  // from the same snapshot even while another process commits an attempt between the statements.
  const readRecord = db.transaction((id: string): DeliveryRecord | undefined => {
    const row = getOne.get(id) as Row | undefined;
    if (row === undefined) return undefined;
    return {
      ...toSummary(row),
      attemptLog: (getAttempts.all(id) as Row[]).map(toAttempt),
      redeliveries: (getRedeliveries.all(id) as Row[]).map((r) => ({
        round: Number(r.round),
        requestedAt: Number(r.requested_at),
      })),
    };
  });

  // better-sqlite3 is synchronous; wrapping each call keeps a thrown SQLite error a rejected
  // promise with a typed error instead of an exception in the caller's stack.
  const run = <T>(what: string, fn: () => T): Promise<T> => {
    try {
      return Promise.resolve(fn());
    } catch (error) {
      if (error instanceof DeliveryEngineError) return Promise.reject(error);
      return Promise.reject(new DeliveryEngineError('store_error', `sqlite store: ${what} failed`, { cause: error }));
    }
  };

  return {
    migrate: () => run('migrate', migrateNow),
    insert: (d, insertOptions) =>
      run('insert', () => {
        // Ignoring it would commit the event on its own, outside the caller's transaction.
        if (insertOptions?.transaction !== undefined) throw transactionRefused();
        return { created: insert.run(...insertValues(d)).changes === 1 };
      }),
    claim: (r) =>
      run('claim', () =>
        claimTx
          .immediate(r)
          .map(toClaim)
          // RETURNING keeps no order; the engine starts the oldest due first.
          .sort((a, b) => a.dueAt - b.dueAt),
      ),
    complete: (c, attempt, next) =>
      completeGrouped([
        {
          id: c.id,
          token: c.token,
          state: next.state,
          next: next.state === 'pending' ? (next.nextAttemptAt ?? next.finishedAt) : null,
          finished: next.state === 'pending' ? null : next.finishedAt,
          outcome: attempt.outcome,
          status: attempt.status ?? null,
        },
        attemptValues(c.id, attempt),
      ]),
    release: (c) => run('release', () => release.run({ id: c.id, token: c.token, dueAt: c.dueAt }).changes === 1),
    nextDueAt: (exclude) =>
      run('nextDueAt', () => {
        const row = nextDue.get(JSON.stringify(exclude)) as Row | undefined;
        return row === undefined ? undefined : Number(row.next_attempt_at);
      }),
    queueStats: (now) => run('queueStats', () => toQueueStats(stats.get({ now }) as Row | undefined)),
    get: (id) => run('get', () => readRecord(id)),
    list: (filter?: DeliveryFilter) =>
      run('list', (): DeliverySummary[] => {
        const { where, params } = listWhere(filter, () => '?');
        const sql = `SELECT ${SUMMARY_COLUMNS} FROM ${t.deliveries} ${where}
                     ORDER BY created_at DESC, id DESC LIMIT ${listLimit(filter?.limit)}`;
        return (db.prepare(sql).all(...params) as Row[]).map(toSummary);
      }),
    redeliver: (id, now) => run('redeliver', () => redeliverTx.immediate(id, now)),
    close: () => run('close', () => void (db.open ? db.close() : undefined)),
  };
}
