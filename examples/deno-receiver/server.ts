/**
 * Deno receiver for KYC completion webhooks. `Deno.serve` hands the receiver the Fetch `Request`
 * as it arrived, so the core's `handle` is the whole integration: no adapter, no body parser.
 *
 *   KYC_AUTH_KEY='<the key saved in the dashboard>' KYC_SIGNING_SECRETS='whsec_…' \
 *     deno run --allow-net --allow-env=KYC_AUTH_KEY,KYC_SIGNING_SECRETS,PORT server.ts
 */
import { decide } from '@kyc/example-actions';
import { createWebhookReceiver } from '@kyc/webhook-receiver';

const authKey = Deno.env.get('KYC_AUTH_KEY');
if (!authKey) throw new Error('Set KYC_AUTH_KEY to the Auth Key saved in the KYC dashboard.');
// "whsec_new whsec_old" during a rotation; unset, signatures are not checked (v1 needs none).
const signingSecrets =
  Deno.env
    .get('KYC_SIGNING_SECRETS')
    ?.split(/[\s,]+/)
    .filter(Boolean) ?? [];

const receiver = createWebhookReceiver({
  authKeys: authKey,
  // Every delivery must then carry a valid webhook-signature (raw bytes, 5-minute tolerance).
  ...(signingSecrets.length ? { signingSecrets } : {}),
  // Your database write or job enqueue goes here; keep it under 25 s. The default idempotency
  // store is this process's memory: give several replicas `@kyc/webhook-receiver/redis` or `/postgres`.
  onEvent: (event) => console.info(JSON.stringify(decide(event))),
});

Deno.serve(
  {
    port: Number(Deno.env.get('PORT') ?? 3000),
    onListen: ({ hostname, port }) =>
      console.info(`KYC webhooks on http://${hostname}:${port}/webhooks/kyc (put TLS in front of it)`),
  },
  (request) =>
    new URL(request.url).pathname === '/webhooks/kyc'
      ? receiver.handle(request)
      : new Response('Not Found', { status: 404 }),
);
