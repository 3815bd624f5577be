/**
 * The Express receiver in inbox mode, on Postgres with Drizzle: each result's action (activate
 * the account, …) commits in the same transaction as the event's key, so it happens once even
 * when the same event arrives twenty times or the process dies between the write and the answer,
 * and a late PENDING is acknowledged without undoing an APPROVED. See docs/idempotency.md.
 */
import { decide, type KycDecision } from '@kyc/example-actions';
import { actOnKycResult, createAccountTables } from '@kyc/example-actions/accounts';
import { createWebhookReceiver } from '@kyc/webhook-receiver';
import { migrateInbox } from '@kyc/webhook-receiver/inbox';
import { drizzleInbox } from '@kyc/webhook-receiver/inbox/drizzle';
import { toNodeHandler } from '@kyc/webhook-receiver/node';
import { drizzle } from 'drizzle-orm/node-postgres';
import express from 'express';
import pg from 'pg';

export interface InboxAppOptions {
  /** The Auth Key saved in the KYC dashboard; several during a rotation. */
  readonly authKeys: string | readonly string[];
  /** The signing secrets (`whsec_…`) from Settings → Signing secret. */
  readonly signingSecrets?: string | readonly string[];
  /** The pool of the database holding `accounts` (and the inbox's tables). */
  readonly pool: pg.Pool;
  /** Told of each decision once its writes are made (logs); it runs inside the transaction. */
  readonly onDecision?: (decision: KycDecision) => void;
}

/** Creates the inbox's and the accounts' tables: run it from your migrations, not per request. */
export async function migrate(pool: pg.Pool): Promise<void> {
  const db = drizzle(pool);
  await migrateInbox(drizzleInbox(db));
  await createAccountTables(db);
}

export function createInboxApp({ authKeys, signingSecrets, pool, onDecision }: InboxAppOptions): express.Express {
  const receiver = createWebhookReceiver({
    authKeys,
    ...(signingSecrets ? { signingSecrets } : {}),
    // Replaces idempotencyStore: the key lives in your database, in your transaction.
    inbox: drizzleInbox(drizzle(pool)),
    async onEvent(event, { tx }) {
      await actOnKycResult(tx, event); // only through tx: those writes commit with the key
      onDecision?.(decide(event));
    },
  });

  const app = express();
  app.all('/webhooks/kyc', toNodeHandler(receiver)); // before express.json(), as in server.ts
  app.use(express.json());
  return app;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const authKey = process.env.KYC_AUTH_KEY;
  const databaseUrl = process.env.DATABASE_URL;
  if (!authKey || !databaseUrl) throw new Error('Set KYC_AUTH_KEY and DATABASE_URL (postgres://…).');
  const signingSecrets = process.env.KYC_SIGNING_SECRETS?.split(/[\s,]+/).filter(Boolean) ?? [];
  const pool = new pg.Pool({ connectionString: databaseUrl });
  await migrate(pool);
  const port = Number(process.env.PORT ?? 3000);
  createInboxApp({
    authKeys: authKey,
    ...(signingSecrets.length ? { signingSecrets } : {}),
    pool,
    onDecision: (d) => console.info(`${d.sessionId}: ${d.action} (${d.reason})`),
  }).listen(port, () => console.info(`KYC webhooks (inbox) on http://localhost:${port}/webhooks/kyc`));
}
