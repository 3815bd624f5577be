/**
 * Google Cloud Functions (and Firebase `onRequest`) receiver for KYC completion webhooks. The
 * platform parses JSON bodies before your function runs and keeps the exact bytes in
 * `req.rawBody`: `toNodeHandler` reads those, so the Auth Key check and parsing see what was sent.
 *
 *   gcloud functions deploy kycWebhook --gen2 --runtime=nodejs24 --trigger-http --allow-unauthenticated \
 *     --set-secrets=KYC_AUTH_KEY=kyc-auth-key:latest,KYC_SIGNING_SECRETS=kyc-signing-secrets:latest \
 *     --set-env-vars=REDIS_URL=redis://10.0.0.3:6379
 *
 * Instances share no memory, and a retry may land on another one: processed events are kept in
 * Redis (or Postgres, `@kyc/webhook-receiver/postgres`), which every instance reaches.
 */
import * as functions from '@google-cloud/functions-framework';
import { decide } from '@kyc/example-actions';
import { createWebhookReceiver } from '@kyc/webhook-receiver';
import { toNodeHandler } from '@kyc/webhook-receiver/node';
import { redisIdempotencyStore } from '@kyc/webhook-receiver/redis';
import { Redis } from 'ioredis';

const { KYC_AUTH_KEY, KYC_SIGNING_SECRETS, REDIS_URL } = process.env;
if (!KYC_AUTH_KEY) throw new Error('Set KYC_AUTH_KEY to the Auth Key saved in the KYC dashboard.');
if (!REDIS_URL) throw new Error('Set REDIS_URL to the Redis every instance of this function shares.');
// "whsec_new whsec_old" during a rotation; unset, signatures are not checked (v1 needs none).
const signingSecrets = KYC_SIGNING_SECRETS?.split(/[\s,]+/).filter(Boolean) ?? [];

const receiver = createWebhookReceiver({
  authKeys: KYC_AUTH_KEY,
  // Every delivery must then carry a valid webhook-signature over req.rawBody (5-minute tolerance).
  ...(signingSecrets.length ? { signingSecrets } : {}),
  idempotencyStore: redisIdempotencyStore(new Redis(REDIS_URL), { keyPrefix: 'kyc:webhooks:' }),
  // Your database write or job enqueue goes here; keep it under 25 s.
  onEvent: (event) => console.info(JSON.stringify(decide(event))),
});

// Firebase: export const kycWebhook = onRequest(toNodeHandler(receiver)); (firebase-functions/https)
functions.http('kycWebhook', toNodeHandler(receiver));
