import type { PostgresLikeClient } from '../idempotency/postgres.js';
import { WebhookError } from '../webhook-error.js';
import { appendQueue } from './append-queue.js';
import { chainAuditRecords } from './hash-audit-entry.js';
import { auditTableNames, type PostgresAuditOptions } from './postgres-audit-table.js';
import type { AuditHead, AuditSink, Sha256 } from './types.js';

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
  const insertSql = `INSERT INTO ${table} (seq, prev_hash, hash, received_at, session_id, webhook_id, outcome, entry)
    SELECT s, p, h, r, si, w, o, e::json
    FROM unnest($1::bigint[], $2::text[], $3::text[], $4::timestamptz[], $5::text[], $6::text[], $7::text[], $8::text[])
      AS u(s, p, h, r, si, w, o, e)`;
  let head: AuditHead | undefined;
  let known = false;

  const readHead = async () => {
    const row = (await client.query(headSql)).rows[0] as { seq: string | number; hash: string } | undefined;
    head = row === undefined ? undefined : { seq: Number(row.seq), hash: row.hash };
    known = true;
  };

  const append = appendQueue(async (records) => {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      if (!known) await readHead();
      const entries = await chainAuditRecords(head, records, options.sha256);
      try {
        await client.query(insertSql, [
          entries.map((entry) => entry.seq),
          entries.map((entry) => entry.prevHash),
          entries.map((entry) => entry.hash),
          entries.map((entry) => entry.receivedAt),
          entries.map((entry) => column(entry.sessionId)),
          entries.map((entry) => column(entry.webhookId)),
          entries.map((entry) => entry.outcome),
          entries.map((entry) => JSON.stringify(entry)),
        ]);
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
  });
  return options.sha256 === undefined ? { append } : { append, sha256: options.sha256 };
}
