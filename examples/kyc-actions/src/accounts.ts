/**
 * The inbox variants' business tables and the action of each status, written through the
 * inbox's transaction (`context.tx`) so each action commits once, together with the event's key.
 * A subpath of its own (`@kyc/example-actions/accounts`) so the other examples load no Drizzle.
 */
import type { KycWebhookEvent } from '@kyc/webhook-receiver';
import { eq, sql } from 'drizzle-orm';
import { type PgDatabase, type PgQueryResultHKT, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';

/** One row per customer, created at sign-up; the webhook only moves its status. */
export const accounts = pgTable('accounts', {
  kycSessionId: text('kyc_session_id').primaryKey(),
  status: text('status').notNull().default('pending_kyc'),
  activatedAt: timestamp('activated_at', { withTimezone: true }),
});

/** Work for the compliance team (a PENDING result waits for a manual review). */
export const complianceTasks = pgTable('compliance_tasks', {
  id: serial('id').primaryKey(),
  sessionId: text('session_id').notNull(),
});

/** Messages to other systems, sent by a worker after the commit (never from the handler). */
export const outbox = pgTable('outbox', {
  id: serial('id').primaryKey(),
  kind: text('kind').notNull(),
  sessionId: text('session_id').notNull(),
});

/** A Drizzle database or transaction on node-postgres (a transaction is also a `PgDatabase`). */
export type AccountsDb = PgDatabase<PgQueryResultHKT>;

/** Creates the three tables when missing: the examples' stand-in for your own migrations. */
export async function createAccountTables(db: AccountsDb): Promise<void> {
  await db.execute(sql`CREATE TABLE IF NOT EXISTS accounts (
    kyc_session_id text PRIMARY KEY, status text NOT NULL DEFAULT 'pending_kyc', activated_at timestamptz)`);
  await db.execute(sql`CREATE TABLE IF NOT EXISTS compliance_tasks (id serial PRIMARY KEY, session_id text NOT NULL)`);
  await db.execute(
    sql`CREATE TABLE IF NOT EXISTS outbox (id serial PRIMARY KEY, kind text NOT NULL, session_id text NOT NULL)`,
  );
}

/**
 * Does what the status asks (docs/acting-on-the-result.md), in `tx`. No ordering logic here:
 * the inbox skips a result older than the one applied to the session, so a late PENDING never
 * reaches this function after an APPROVED.
 */
export async function actOnKycResult(tx: AccountsDb, event: KycWebhookEvent): Promise<void> {
  // A v1 body has no status: it goes to review by scores, which writes nothing here.
  if (event.shape === 'v1' || event.status === undefined) return;
  const account = eq(accounts.kycSessionId, event.sessionId);
  switch (event.status) {
    case 'APPROVED': // activate the account
      await tx.update(accounts).set({ status: 'active', activatedAt: sql`now()` }).where(account);
      break;
    case 'REJECTED': // ask for a retry or more documents
      await tx.update(accounts).set({ status: 'documents_requested' }).where(account);
      await tx.insert(outbox).values({ kind: 'email.more-documents', sessionId: event.sessionId });
      break;
    case 'PENDING': // notify the compliance team; the account waits for the review
      await tx.update(accounts).set({ status: 'in_review' }).where(account);
      await tx.insert(complianceTasks).values({ sessionId: event.sessionId });
      break;
    case 'ERROR': // let the user retry
      await tx.update(accounts).set({ status: 'retry_allowed' }).where(account);
      break;
  }
}
