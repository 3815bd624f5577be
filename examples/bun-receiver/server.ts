/**
 * Bun receiver for KYC completion webhooks. `Bun.serve` hands the receiver the Fetch `Request`
 * as it arrived, so the core's `handle` is the whole integration: no adapter, no body parser.
 *
 *   KYC_AUTH_KEY='<the key saved in the dashboard>' KYC_SIGNING_SECRETS='whsec_…' bun server.ts
 */
import { decide } from '@kyc/example-actions';
import { createWebhookReceiver } from '@kyc/webhook-receiver';

const authKey = Bun.env.KYC_AUTH_KEY;
if (!authKey) throw new Error('Set KYC_AUTH_KEY to the Auth Key saved in the KYC dashboard.');
// "whsec_new whsec_old" during a rotation; unset, signatures are not checked (v1 needs none).
const signingSecrets = Bun.env.KYC_SIGNING_SECRETS?.split(/[\s,]+/).filter(Boolean) ?? [];

const receiver = createWebhookReceiver({
  authKeys: authKey,
  // Every delivery must then carry a valid webhook-signature (raw bytes, 5-minute tolerance).
  ...(signingSecrets.length ? { signingSecrets } : {}),
  // Your database write or job enqueue goes here; keep it under 25 s. The default idempotency
  // store is this process's memory: give several replicas `@kyc/webhook-receiver/redis` or `/postgres`.
  onEvent: (event) => console.info(JSON.stringify(decide(event))),
});

const server = Bun.serve({
  port: Number(Bun.env.PORT ?? 3000),
  routes: { '/webhooks/kyc': (request) => receiver.handle(request) },
});
console.info(`KYC webhooks on ${server.url}webhooks/kyc (put TLS in front of it)`);
