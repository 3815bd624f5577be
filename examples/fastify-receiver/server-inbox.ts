/**
 * The Fastify receiver in inbox mode, on Postgres with Drizzle: each result's action (activate
 * the account, …) commits in the same transaction as the event's key, so it happens once even
 * when the same event arrives twenty times or the process dies between the write and the answer,
 * and a late PENDING is acknowledged without undoing an APPROVED. See docs/idempotency.md.
 */
import { decide, type KycDecision } from '@kyc/example-actions';
import { actOnKycResult, createAccountTables } from '@kyc/example-actions/accounts';
import { createWebhookReceiver } from '@kyc/webhook-receiver';
import { kycWebhookPlugin } from '@kyc/webhook-receiver/fastify';
import { migrateInbox } from '@kyc/webhook-receiver/inbox';
import { drizzleInbox } from '@kyc/webhook-receiver/inbox/drizzle';
import { drizzle } from 'drizzle-orm/node-postgres';
import Fastify, { type FastifyInstance } from 'fastify';
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

export async function createInboxApp({
  authKeys,
  signingSecrets,
  pool,
  onDecision,
}: InboxAppOptions): Promise<FastifyInstance> {
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

  const app = Fastify();
  await app.register(kycWebhookPlugin, { receiver, path: '/webhooks/kyc' });
  return app;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const authKey = process.env.KYC_AUTH_KEY;
  const databaseUrl = process.env.DATABASE_URL;
  if (!authKey || !databaseUrl) throw new Error('Set KYC_AUTH_KEY and DATABASE_URL (postgres://…).');
  const signingSecrets = process.env.KYC_SIGNING_SECRETS?.split(/[\s,]+/).filter(Boolean) ?? [];
  const pool = new pg.Pool({ connectionString: databaseUrl });
  await migrate(pool);
  const app = await createInboxApp({
    authKeys: authKey,
    ...(signingSecrets.length ? { signingSecrets } : {}),
    pool,
    onDecision: (d) => console.info(`${d.sessionId}: ${d.action} (${d.reason})`),
  });
  await app.listen({ port: Number(process.env.PORT ?? 3000) });
}
