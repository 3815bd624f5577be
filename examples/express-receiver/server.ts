/**
 * Express 5 receiver for KYC completion webhooks.
 *
 * The one rule Express needs: the webhook route must see the raw bytes, so mount it BEFORE any
 * global `express.json()`. The receiver reads and size-limits the body itself; if a JSON parser
 * ran first it answers with an error naming the fix instead of hanging (an `express.raw()` on the
 * route would not help then; a global `express.json({ verify })` keeping the bytes would).
 */
import { decide, type KycDecision } from '@kyc/example-actions';
import { createWebhookReceiver, type IdempotencyStore } from '@kyc/webhook-receiver';
import { toNodeHandler } from '@kyc/webhook-receiver/node';
import express from 'express';

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

export function createApp({ authKeys, signingSecrets, onDecision, idempotencyStore }: AppOptions): express.Express {
  const receiver = createWebhookReceiver({
    authKeys,
    // Every delivery must then carry a valid webhook-signature (raw bytes, 5-minute tolerance).
    ...(signingSecrets ? { signingSecrets } : {}),
    ...(idempotencyStore ? { idempotencyStore } : {}),
    onEvent: (event) => onDecision(decide(event)),
  });

  const app = express();
  // Before express.json(); `all` so that a GET gets the receiver's 405 with Allow: POST, not a 404.
  app.all('/webhooks/kyc', toNodeHandler(receiver));
  app.use(express.json());
  app.get('/health', (_req, res) => {
    res.json({ ok: true });
  });
  return app;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const authKey = process.env.KYC_AUTH_KEY;
  // "whsec_new whsec_old" during a rotation; unset, signatures are not checked (v1 needs none).
  const signingSecrets = process.env.KYC_SIGNING_SECRETS?.split(/[\s,]+/).filter(Boolean) ?? [];
  if (!authKey) throw new Error('Set KYC_AUTH_KEY to the Auth Key saved in the KYC dashboard.');
  const port = Number(process.env.PORT ?? 3000);
  createApp({
    authKeys: authKey,
    ...(signingSecrets.length ? { signingSecrets } : {}),
    onDecision: (d) => console.info(`${d.sessionId}: ${d.action} (${d.reason})`),
  }).listen(port, () => console.info(`KYC webhooks on http://localhost:${port}/webhooks/kyc (put TLS in front of it)`));
}
