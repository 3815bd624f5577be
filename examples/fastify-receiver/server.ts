/**
 * Fastify 5 receiver for KYC completion webhooks.
 *
 * `kycWebhookPlugin` registers the route inside its own encapsulated context with a parser
 * that leaves the raw bytes to the receiver, so the rest of the app keeps Fastify's JSON parser.
 */
import { decide, type KycDecision } from '@kyc/example-actions';
import { createWebhookReceiver, type IdempotencyStore } from '@kyc/webhook-receiver';
import { kycWebhookPlugin } from '@kyc/webhook-receiver/fastify';
import Fastify, { type FastifyInstance } from 'fastify';

export interface AppOptions {
  /** The Auth Key saved in the KYC dashboard; several during a rotation. */
  readonly authKeys: string | readonly string[];
  /** The signing secrets (`whsec_…`) from Settings → Signing secret; the new and the old during a rotation. */
  readonly signingSecrets?: string | readonly string[];
  /** Where the decision goes: your database write or job enqueue. Keep it fast (< 25 s). */
  readonly onDecision: (decision: KycDecision) => Promise<void> | void;
  /** Shared by all replicas in production (`@kyc/webhook-receiver/redis` or `/postgres`). */
  readonly idempotencyStore?: IdempotencyStore;
}

export async function createApp({
  authKeys,
  signingSecrets,
  onDecision,
  idempotencyStore,
}: AppOptions): Promise<FastifyInstance> {
  const receiver = createWebhookReceiver({
    authKeys,
    // Every delivery must then carry a valid webhook-signature (raw bytes, 5-minute tolerance).
    ...(signingSecrets ? { signingSecrets } : {}),
    ...(idempotencyStore ? { idempotencyStore } : {}),
    onEvent: (event) => onDecision(decide(event)),
  });

  const app = Fastify();
  await app.register(kycWebhookPlugin, { receiver, path: '/webhooks/kyc' });
  app.post('/echo', async (request) => request.body); // JSON parsing still works here
  return app;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const authKey = process.env.KYC_AUTH_KEY;
  // "whsec_new whsec_old" during a rotation; unset, signatures are not checked (v1 needs none).
  const signingSecrets = process.env.KYC_SIGNING_SECRETS?.split(/[\s,]+/).filter(Boolean) ?? [];
  if (!authKey) throw new Error('Set KYC_AUTH_KEY to the Auth Key saved in the KYC dashboard.');
  const app = await createApp({
    authKeys: authKey,
    ...(signingSecrets.length ? { signingSecrets } : {}),
    onDecision: (d) => console.info(`${d.sessionId}: ${d.action} (${d.reason})`),
  });
  await app.listen({ port: Number(process.env.PORT ?? 3000) });
}
