/**
 * Cloudflare Worker receiver for KYC completion webhooks. Workers hand `fetch` a Web `Request`,
 * so the core's `handle` is the whole integration. Processed events are remembered in a
 * Durable Object that every isolate and location shares (the memory store would be per isolate).
 *
 *   wrangler secret put KYC_AUTH_KEY          # the Auth Key saved in the KYC dashboard
 *   wrangler secret put KYC_SIGNING_SECRETS   # whsec_…; "whsec_new whsec_old" during a rotation
 *   wrangler deploy                           # wrangler.jsonc binds KYC_IDEMPOTENCY
 */
import { decide } from '@kyc/example-actions';
import { createWebhookReceiver, type WebhookReceiver } from '@kyc/webhook-receiver';
import { type DurableObjectNamespaceLike, durableObjectIdempotencyStore } from '@kyc/webhook-receiver/cloudflare';

// workerd creates the idempotency objects from this export of the main module.
export { KycIdempotencyObject } from '@kyc/webhook-receiver/cloudflare';

interface Env {
  readonly KYC_AUTH_KEY: string;
  /** Unset, signatures are not checked (v1 needs none). */
  readonly KYC_SIGNING_SECRETS?: string;
  readonly KYC_IDEMPOTENCY: DurableObjectNamespaceLike;
}

// One receiver per isolate, made on the first request (bindings arrive with requests).
let receiver: WebhookReceiver | undefined;

export default {
  fetch(request: Request, env: Env): Promise<Response> | Response {
    if (new URL(request.url).pathname !== '/webhooks/kyc') return new Response('Not Found', { status: 404 });
    const signingSecrets = env.KYC_SIGNING_SECRETS?.split(/[\s,]+/).filter(Boolean) ?? [];
    receiver ??= createWebhookReceiver({
      authKeys: env.KYC_AUTH_KEY,
      // Every delivery must then carry a valid webhook-signature (raw bytes, 5-minute tolerance).
      ...(signingSecrets.length ? { signingSecrets } : {}),
      idempotencyStore: durableObjectIdempotencyStore(env.KYC_IDEMPOTENCY),
      // Your database write or queue send goes here; keep it under 25 s.
      onEvent: (event) => console.info(JSON.stringify(decide(event))),
    });
    return receiver.handle(request);
  },
};
