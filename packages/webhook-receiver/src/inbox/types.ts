/** The two SQL families the inbox speaks: their upsert, lock-timeout and error codes differ. */
export type InboxDialect = 'postgres' | 'mysql';

/** What one statement did: the rows it returned, and how many rows it inserted or changed. */
export interface InboxQueryResult {
  readonly rows: readonly Record<string, unknown>[];
  readonly affected: number;
}

/**
 * One open transaction on the customer's database, as the inbox drives it. The inbox's own
 * statements go through `query` (positional `?` placeholders, in order); the handler gets `tx`,
 * the library's own transaction object, so its writes join the same transaction.
 */
export interface InboxTransaction<Tx> {
  /** Handed to the handler as `context.tx`. */
  readonly tx: Tx;
  query(sql: string, params: readonly unknown[]): Promise<InboxQueryResult>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  /**
   * Optional: ends the transaction at once and makes `tx` unusable (the connection is
   * destroyed, so the server rolls back), for a handler that outlived the deadline. Without it
   * the receiver rolls back when the handler finally settles.
   */
  abandon?(): void;
  /**
   * `true` when `commit()` itself rejects if the transaction did not commit (the `pg` adapter
   * reads the server's answer: `COMMIT` of an aborted transaction answers `ROLLBACK`). Otherwise
   * the receiver first checks, in the transaction, that the event's key is still there: a handler
   * that caught a failed statement (Postgres aborts the transaction) or a deadlock (InnoDB rolls
   * it back and goes on) must not be answered 200.
   */
  readonly commitChecked?: boolean;
  /**
   * Optional: the server connection this transaction runs on, as one object for as long as that
   * connection lives, whichever delivery checks it out of the pool. With it, a setting that stays
   * on the connection (MySQL's `SET SESSION innodb_lock_wait_timeout`) is sent only when the
   * connection does not already hold it: once per pooled connection rather than a round trip per
   * delivery. Leave it out when the pool resets connections between checkouts, or the setting
   * would be taken for still in force after the reset dropped it.
   */
  readonly connection?: object;
}

/** A transaction just begun, and the result of its first statement. */
export interface InboxOpening<Tx> {
  /** The open transaction, as `begin()` would have resolved it. */
  readonly transaction: InboxTransaction<Tx>;
  /** What the first statement answered, as `query()` would have. */
  readonly result: InboxQueryResult;
}

/** A database the inbox can open transactions on: what each adapter implements, in a few lines. */
export interface InboxDatabase<Tx> {
  readonly dialect: InboxDialect;
  begin(): Promise<InboxTransaction<Tx>>;
  /**
   * Optional: begins a transaction and runs its first statement in the same round trip (the
   * `pg` adapter sends BEGIN and the statement in one batch). On rejection the transaction has
   * already been ended. Without it the receiver calls `begin()`, then `query()`: one more round
   * trip per delivery, which is most of the inbox's cost on a fast handler.
   */
  beginWith?(sql: string, params: readonly unknown[]): Promise<InboxOpening<Tx>>;
}

/** What to do with a result older than the one already applied to its session. */
export type StaleResultPolicy = 'skip' | 'run';

/** Options of every inbox adapter (`pgInbox`, `drizzleInbox`, …). */
export interface InboxOptions {
  /**
   * Name of the inbox table (letters, digits, underscores; optionally `schema.table` on
   * Postgres). The per-session table is this name + `_sessions`. Default `kyc_webhook_inbox`.
   */
  readonly table?: string;
  /**
   * How long a delivery waits for the same event (or session) held by another delivery's open
   * transaction before answering 409 + `Retry-After`. Default 5 s. On MySQL/MariaDB it is
   * rounded up to whole seconds (`innodb_lock_wait_timeout`).
   */
  readonly lockTimeoutMs?: number;
  /**
   * A result older than the newest one applied to its session (see docs/idempotency.md):
   * `'skip'` (default) acknowledges it with 200 without running the handler; `'run'` runs the
   * handler with `context.supersededBy` set, and the newer result stays the session's newest.
   */
  readonly staleResults?: StaleResultPolicy;
}

/** The inbox options after validation, with the quoted table names. */
export interface InboxSettings {
  readonly table: string;
  readonly sessionsTable: string;
  /** The names as given, for error messages. */
  readonly tableName: string;
  readonly lockTimeoutMs: number;
  readonly staleResults: StaleResultPolicy;
}

/**
 * A transactional inbox: pass it as `createWebhookReceiver({ inbox })`, and to `migrateInbox`
 * and `pruneInbox`. Build one with an adapter (`pgInbox(pool)`, `drizzleInbox(db)`, …) or
 * {@link defineInbox} over your own {@link InboxDatabase}.
 */
export interface Inbox<Tx> {
  readonly database: InboxDatabase<Tx>;
  readonly settings: InboxSettings;
  /**
   * How the receiver runs one delivery in inbox mode (`InboxRunner`). The inbox carries its
   * runner so that receivers without an inbox do not bundle it.
   * @internal
   */
  readonly run: (...args: never[]) => unknown;
}

/** The newest result already applied to the session, when the event at hand is not newer. */
export interface SupersededBy {
  /** Its status (`APPROVED` …); `null` for a v1 body, which has none. */
  readonly status: string | null;
  /** Its event time: the status shape's `timestamp`, the v1 shape's `endedAt`. */
  readonly eventTime: Date;
}

/**
 * What the inbox did with a delivery, for logs, the span and the audit trail:
 * `committed` (handler ran, its writes and the key committed), `duplicate` (key found, nothing
 * run), `stale_skipped` (older than the session's newest: key recorded, handler not run),
 * `rolled_back` (handler threw or outlived the deadline: nothing kept), `lock_timeout` (409),
 * `unavailable` (the database failed: 503).
 */
export type InboxOutcome = 'committed' | 'duplicate' | 'stale_skipped' | 'rolled_back' | 'lock_timeout' | 'unavailable';
