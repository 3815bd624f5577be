/**
 * Bun receiver for KYC completion webhooks. `Bun.serve` hands the receiver the Fetch `Request`
 * as it arrived, so the core's `handle` is the whole integration: no adapter, no body parser.
 *
 *   KYC_AUTH_KEY='<the key saved in the dashboard>' bun server.ts
 */
import { decide } from '@kyc/example-actions';
import { createWebhookReceiver } from '@kyc/webhook-receiver';

const authKey = Bun.env.KYC_AUTH_KEY;
if (!authKey) throw new Error('Set KYC_AUTH_KEY to the Auth Key saved in the KYC dashboard.');

const receiver = createWebhookReceiver({
  authKeys: authKey,
  // Your database write or job enqueue goes here; keep it under 25 s. The default idempotency
  // store is this process's memory: give several replicas `@kyc/webhook-receiver/redis` or `/postgres`.
  onEvent: (event) => console.info(JSON.stringify(decide(event))),
});

const server = Bun.serve({
  port: Number(Bun.env.PORT ?? 3000),
  routes: { '/webhooks/kyc': (request) => receiver.handle(request) },
});
console.info(`KYC webhooks on ${server.url}webhooks/kyc (put TLS in front of it)`);
