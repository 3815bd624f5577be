/**
 * Koa 3 receiver for KYC completion webhooks. The webhook route is matched before the body
 * parser, so the receiver reads the raw bytes itself (after `@koa/bodyparser` it would use the
 * parser's `rawBody`); the rest of the app keeps its JSON parser.
 */
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import { decide, type KycDecision } from '@kyc/example-actions';
import { createWebhookReceiver, type IdempotencyStore } from '@kyc/webhook-receiver';
import { toKoaMiddleware } from '@kyc/webhook-receiver/koa';
import Koa from 'koa';

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

export function createApp({ authKeys, signingSecrets, onDecision, idempotencyStore }: AppOptions): Koa {
  const receiver = createWebhookReceiver({
    authKeys,
    // Every delivery must then carry a valid webhook-signature (raw bytes, 5-minute tolerance).
    ...(signingSecrets ? { signingSecrets } : {}),
    ...(idempotencyStore ? { idempotencyStore } : {}),
    onEvent: (event) => onDecision(decide(event)),
  });
  const webhooks = new Router().all('/webhooks/kyc', toKoaMiddleware(receiver));
  const api = new Router().post('/echo', (ctx) => {
    ctx.body = { received: ctx.request.body };
  });
  const app = new Koa();
  app.use(webhooks.routes()); // before the body parser
  app.use(bodyParser());
  app.use(api.routes());
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
