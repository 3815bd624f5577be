import { sampleStatusWebhook } from '@kyc/contracts';
import pg from 'pg';
import { migrateInbox } from '../src/inbox.js';
import { pgInbox } from '../src/inbox-pg.js';

/** The bench's own schema: its accounts and inbox tables never meet a test's. */
export const BENCH_SCHEMA = 'kyc_bench_inbox';
export const POSTGRES_URL = process.env.KYC_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** Accounts the events cycle over: enough that two requests in flight never share a session. */
export const ACCOUNTS = 10_000;
/** The one write of the handler, the same in every line of the section. */
export const ACTIVATE = 'UPDATE accounts SET status = $1, activated_at = now() WHERE kyc_session_id = $2';

export const benchPool = (max: number): pg.Pool =>
  new pg.Pool({ connectionString: POSTGRES_URL, max, options: `-c search_path=${BENCH_SCHEMA}` });

/** A fresh schema: accounts, the receiver's inbox (migrateInbox) and the hand-written recipe's key table. */
export async function prepareInboxDatabase(): Promise<void> {
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${BENCH_SCHEMA} CASCADE; CREATE SCHEMA ${BENCH_SCHEMA}`);
  await admin.end();
  const pool = benchPool(1);
  await pool.query(
    'CREATE TABLE accounts (kyc_session_id text PRIMARY KEY, status text NOT NULL, activated_at timestamptz)',
  );
  await pool.query(
    "INSERT INTO accounts SELECT 'bench-' || n, 'pending_kyc', NULL FROM generate_series(0, $1::int - 1) AS n",
    [ACCOUNTS],
  );
  await pool.query('CREATE TABLE recipe_inbox (key text PRIMARY KEY, received_at timestamptz NOT NULL DEFAULT now())');
  await migrateInbox(pgInbox(pool));
  await pool.end();
}

const BASE_TIME = Date.UTC(2026, 0, 1);
// One counter per process: every event is new (its own key) and newer than the last one of its
// session (a later timestamp), so each request runs the handler; none is a duplicate or stale.
let sequence = 0;

/** The next event: a status-shape body and its Webhook-Id. */
export function nextEvent(): { readonly id: string; readonly body: string } {
  const n = sequence++;
  const body = JSON.stringify({
    ...sampleStatusWebhook,
    sessionId: `bench-${n % ACCOUNTS}`,
    timestamp: new Date(BASE_TIME + n).toISOString(),
  });
  return { id: `evt_${process.pid}_${n}`, body };
}
