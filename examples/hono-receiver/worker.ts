/**
 * The Hono app of app.ts as a Cloudflare Worker (`wrangler secret put KYC_AUTH_KEY`, then
 * `wrangler deploy`; wrangler.jsonc binds the Durable Object that remembers processed events for
 * every isolate, where the default memory store would be per isolate).
 */
import { type DurableObjectNamespaceLike, durableObjectIdempotencyStore } from '@kyc/webhook-receiver/cloudflare';
import type { Hono } from 'hono';
import { createApp } from './app.js';

export { KycIdempotencyObject } from '@kyc/webhook-receiver/cloudflare';

interface Env {
  readonly KYC_AUTH_KEY: string;
  readonly KYC_IDEMPOTENCY: DurableObjectNamespaceLike;
}

// One app per isolate, made on the first request (bindings arrive with requests).
let app: Hono | undefined;

export default {
  fetch(request: Request, env: Env): Response | Promise<Response> {
    app ??= createApp({
      authKeys: env.KYC_AUTH_KEY,
      idempotencyStore: durableObjectIdempotencyStore(env.KYC_IDEMPOTENCY),
      onDecision: (decision) => console.info(JSON.stringify(decision)),
    });
    return app.fetch(request, env);
  },
};
