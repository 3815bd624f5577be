import type { PostgresLikeClient } from '../idempotency/postgres.js';
import { WebhookError } from '../webhook-error.js';

/** Options of the Postgres audit sink, {@link createAuditTable} and `readPostgresAuditLog`. */
export interface PostgresAuditOptions {
  /** Table name, optionally schema-qualified. Default `kyc_webhook_audit`. */
  readonly tableName?: string;
}

const DEFAULT_TABLE = 'kyc_webhook_audit';
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,47}(\.[A-Za-z_][A-Za-z0-9_]{0,47})?$/;

/** The table's quoted name, and names derived from it (indexes, the trigger function). */
export interface AuditTableNames {
  readonly table: string;
  readonly bare: string;
  readonly qualify: (name: string) => string;
}

/** Quotes a validated (schema-qualified) name; anything else is refused, never interpolated. */
export function auditTableNames(options: PostgresAuditOptions, caller: string): AuditTableNames {
  const name = options.tableName ?? DEFAULT_TABLE;
  if (!IDENTIFIER.test(name)) {
    throw new WebhookError(
      'invalid_option',
      `${caller}: tableName must be letters, digits and underscores (at most 48), optionally "schema.table".`,
    );
  }
  const parts = name.split('.');
  const bare = parts[parts.length - 1] as string;
  const schema = parts.length === 2 ? `"${parts[0]}".` : '';
  return { table: `${schema}"${bare}"`, bare, qualify: (suffix) => `${schema}"${bare}_${suffix}"` };
}

/**
 * Creates the audit table if it does not exist: one row per entry, `seq` the primary key (two
 * replicas can never both write entry n, which keeps the chain whole), the entry itself as
 * `json` (kept exactly as written), and columns to find entries by session, event or time.
 * A trigger refuses UPDATE, DELETE and TRUNCATE: the table is insert-only even for the
 * application's own role (see docs/audit.md for retention). Run it once at deploy time.
 *
 * @example
 * await createAuditTable(pool);
 */
export async function createAuditTable(client: PostgresLikeClient, options: PostgresAuditOptions = {}): Promise<void> {
  const { table, bare, qualify } = auditTableNames(options, 'createAuditTable');
  const guard = qualify('append_only');
  await client.query(`CREATE TABLE IF NOT EXISTS ${table} (
    seq bigint PRIMARY KEY CHECK (seq > 0),
    prev_hash text NOT NULL UNIQUE,
    hash text NOT NULL UNIQUE,
    received_at timestamptz NOT NULL,
    session_id text,
    webhook_id text,
    outcome text NOT NULL,
    entry json NOT NULL
  )`);
  await client.query(`CREATE INDEX IF NOT EXISTS "${bare}_session_id_idx" ON ${table} (session_id)`);
  await client.query(`CREATE INDEX IF NOT EXISTS "${bare}_received_at_idx" ON ${table} (received_at)`);
  await client.query(`CREATE OR REPLACE FUNCTION ${guard}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'the webhook audit log is insert-only (% refused)', TG_OP;
    END $$`);
  await client.query(`CREATE OR REPLACE TRIGGER "${bare}_no_update" BEFORE UPDATE OR DELETE ON ${table}
    FOR EACH ROW EXECUTE FUNCTION ${guard}()`);
  await client.query(`CREATE OR REPLACE TRIGGER "${bare}_no_truncate" BEFORE TRUNCATE ON ${table}
    FOR EACH STATEMENT EXECUTE FUNCTION ${guard}()`);
}
