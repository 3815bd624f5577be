/**
 * The Hono app of app.ts as a Cloudflare Worker (`wrangler secret put KYC_AUTH_KEY` and
 * `KYC_SIGNING_SECRETS`, "whsec_new whsec_old" during a rotation, then
 * `wrangler deploy`; wrangler.jsonc binds the Durable Object that remembers processed events for
 * every isolate, where the default memory store would be per isolate).
 */
import { type DurableObjectNamespaceLike, durableObjectIdempotencyStore } from '@kyc/webhook-receiver/cloudflare';
import type { Hono } from 'hono';
import { createApp } from './app.js';

export { KycIdempotencyObject } from '@kyc/webhook-receiver/cloudflare';

interface Env {
  readonly KYC_AUTH_KEY: string;
  /** Unset, signatures are not checked (v1 needs none). */
  readonly KYC_SIGNING_SECRETS?: string;
  readonly KYC_IDEMPOTENCY: DurableObjectNamespaceLike;
}

// One app per isolate, made on the first request (bindings arrive with requests).
let app: Hono | undefined;

export default {
  fetch(request: Request, env: Env): Response | Promise<Response> {
    const signingSecrets = env.KYC_SIGNING_SECRETS?.split(/[\s,]+/).filter(Boolean) ?? [];
    app ??= createApp({
      authKeys: env.KYC_AUTH_KEY,
      ...(signingSecrets.length ? { signingSecrets } : {}),
      idempotencyStore: durableObjectIdempotencyStore(env.KYC_IDEMPOTENCY),
      onDecision: (decision) => console.info(JSON.stringify(decision)),
    });
    return app.fetch(request, env);
  },
};
