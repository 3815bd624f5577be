import type { PostgresLikeClient } from '../idempotency/postgres.js';
import { WebhookError } from '../webhook-error.js';
import { APPEND_WITHIN, appendQueue, type QueuedSink } from './append-queue.js';
import { chainBatch, sha256Hex, textSha256 } from './hash-audit-entry.js';
import { auditTableNames, type PostgresAuditOptions } from './postgres-audit-table.js';
import type { AuditEntry, AuditHead, AuditRecord, AuditSink, Sha256 } from './types.js';

/** Options of {@link postgresAuditSink}. */
export interface PostgresAuditSinkOptions extends PostgresAuditOptions {
  /** The SHA-256 for bodies and the chain; default Web Crypto. On Node pass `nodeSha256` (`@kyc/webhook-receiver/audit-file`): much cheaper. */
  readonly sha256?: Sha256;
}

// Rounds of "another replica took this seq first": each costs one short query; many replicas
// appending at once settle within a few.
const MAX_ROUNDS = 50;

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

/** A NUL cannot sit in a Postgres text column; these columns only help to find entries. */
function column(value: string | null): string | null {
  return value === null ? null : value.replaceAll('\u0000', '\uFFFD');
}

function hasNul(value: unknown): boolean {
  return typeof value === 'string' && value.includes('\u0000');
}

/** Whether a value of a lookup column holds a NUL (any of them: a record appended by hand may hold anything). */
function holdsNul(entry: AuditEntry): boolean {
  return hasNul(entry.webhookId) || hasNul(entry.sessionId) || hasNul(entry.outcome) || hasNul(entry.receivedAt);
}

/** The lookup columns of an entry, NULs replaced, in the order of `insertWithColumnsSql`. */
function columns(entry: AuditEntry): unknown[] {
  return [
    entry.seq,
    entry.prevHash,
    entry.hash,
    column(entry.receivedAt),
    column(entry.sessionId),
    column(entry.webhookId),
    column(entry.outcome),
  ];
}

/**
 * An audit sink in a Postgres table (create it with {@link createAuditTable}), one chain shared
 * by every replica. Each batch is chained after the head this sink last saw and inserted in
 * one statement; `seq` is the primary key, so when another replica appended first the insert
 * fails as a whole, and the sink reads the new head and chains the batch again — the chain
 * stays one line without a lock held across replicas. Appends from one process are grouped
 * while an insert is in flight. Takes the same structural `query(text, params)` client as the
 * Postgres idempotency store (a `pg.Pool` is right).
 *
 * @example
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * await createAuditTable(pool);
 * const receiver = createWebhookReceiver({ authKeys, onEvent, audit: auditTrail({ sink: postgresAuditSink(pool) }) });
 */
export function postgresAuditSink(client: PostgresLikeClient, options: PostgresAuditSinkOptions = {}): AuditSink {
  if (typeof client?.query !== 'function') {
    throw new WebhookError('invalid_option', 'postgresAuditSink: client must have a query(text, params) method.');
  }
  const { table } = auditTableNames(options, 'postgresAuditSink');
  const headSql = `SELECT seq, hash FROM ${table} ORDER BY seq DESC LIMIT 1`;
  // One JSON parameter, the entries, whose text json_array_elements keeps exactly as written;
  // the lookup columns are read out of it. Postgres cannot take a NUL out of JSON into text, so
  // a batch where a lookup value holds one (a sender's webhook id, say) sends those columns as a
  // second JSON parameter, NULs replaced. Not always two: a parameter is escaped and sent byte
  // by byte, and the columns' copy cost a fifth of the sink's time.
  const insertSql = `INSERT INTO ${table} (seq, prev_hash, hash, received_at, session_id, webhook_id, outcome, entry)
    SELECT r.seq, r."prevHash", r.hash, r."receivedAt", r."sessionId", r."webhookId", r.outcome, e
    FROM json_array_elements($1::json) AS e, json_to_record(e) AS r(seq bigint, "prevHash" text, hash text,
      "receivedAt" timestamptz, "sessionId" text, "webhookId" text, outcome text)`;
  const insertWithColumnsSql = `INSERT INTO ${table} (seq, prev_hash, hash, received_at, session_id, webhook_id, outcome, entry)
    SELECT (c.value->>0)::bigint, c.value->>1, c.value->>2, (c.value->>3)::timestamptz, c.value->>4, c.value->>5,
      c.value->>6, e.value
    FROM json_array_elements($1::json) WITH ORDINALITY AS e(value, n)
    JOIN json_array_elements($2::json) WITH ORDINALITY AS c(value, n) ON c.n = e.n`;
  const hashText = textSha256(options.sha256 ?? sha256Hex);
  let head: AuditHead | undefined;
  let known = false;

  const readHead = async () => {
    const row = (await client.query(headSql)).rows[0] as { seq: string | number; hash: string } | undefined;
    head = row === undefined ? undefined : { seq: Number(row.seq), hash: row.hash };
    known = true;
  };

  const write = async (records: readonly AuditRecord[]) => {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      if (!known) await readHead();
      const { entries, lines } = await chainBatch(head, records, hashText);
      try {
        const text = `[${lines.join(',')}]`;
        if (entries.some(holdsNul))
          await client.query(insertWithColumnsSql, [text, JSON.stringify(entries.map(columns))]);
        else await client.query(insertSql, [text]);
      } catch (error) {
        known = false;
        if (!isUniqueViolation(error)) throw error;
        // Another replica appended first: spread the retries so they do not collide again.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 * (round + 1))));
        continue;
      }
      const last = entries[entries.length - 1];
      if (last !== undefined) head = { seq: last.seq, hash: last.hash };
      return entries;
    }
    throw new Error(`postgresAuditSink: the log's head kept moving (${MAX_ROUNDS} rounds)`);
  };
  // The requests of one turn of the event loop share an INSERT (setImmediate where there is one).
  const queue = appendQueue(write, { defer: typeof setImmediate === 'function' ? setImmediate : queueMicrotask });
  const sink: AuditSink & QueuedSink = { append: queue.append, [APPEND_WITHIN]: queue.appendWithin };
  return options.sha256 === undefined ? sink : { ...sink, sha256: options.sha256 };
}
