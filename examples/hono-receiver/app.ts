/**
 * Hono receiver for KYC completion webhooks. `receiver.handle` takes the Fetch `Request`
 * untouched, so this app runs as it is on Node (`@hono/node-server`), Bun, Deno and Workers.
 * Do not read the body yourself first (`c.req.json()`): the receiver needs the raw bytes.
 */
import { decide, type KycDecision } from '@kyc/example-actions';
import { createWebhookReceiver, type IdempotencyStore } from '@kyc/webhook-receiver';
import { Hono } from 'hono';

export interface AppOptions {
  /** The Auth Key saved in the KYC dashboard; several during a rotation. */
  readonly authKeys: string | readonly string[];
  /** The signing secrets (`whsec_…`) from Settings → Signing secret; the new and the old during a rotation. */
  readonly signingSecrets?: string | readonly string[];
  /** Where the decision goes: your database write or job enqueue. Keep it fast (< 25 s). */
  readonly onDecision: (decision: KycDecision) => Promise<void> | void;
  /** Shared by all replicas; in-memory is per isolate (not enough on Workers or serverless). */
  readonly idempotencyStore?: IdempotencyStore;
}

export function createApp({ authKeys, signingSecrets, onDecision, idempotencyStore }: AppOptions): Hono {
  const receiver = createWebhookReceiver({
    authKeys,
    // Every delivery must then carry a valid webhook-signature (raw bytes, 5-minute tolerance).
    ...(signingSecrets ? { signingSecrets } : {}),
    ...(idempotencyStore ? { idempotencyStore } : {}),
    onEvent: (event) => onDecision(decide(event)),
  });
  const app = new Hono();
  // `all`: a GET gets the receiver's 405 with Allow: POST, as on every other framework.
  app.all('/webhooks/kyc', (c) => receiver.handle(c.req.raw));
  return app;
}
