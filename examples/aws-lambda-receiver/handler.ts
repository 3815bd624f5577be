/**
 * AWS Lambda receiver for KYC completion webhooks, behind API Gateway (REST API with payload
 * 1.0, HTTP API with 2.0) or a Lambda function URL: `toLambdaHandler` reads the event, base64
 * bodies and multi-value headers included, and returns the result object.
 *
 * Lambda instances share no memory, and a retry may land on another one: processed events are
 * kept in Redis (or Postgres, `@kyc/webhook-receiver/postgres`), which every instance reaches.
 */
import { decide } from '@kyc/example-actions';
import { createWebhookReceiver } from '@kyc/webhook-receiver';
import { toLambdaHandler } from '@kyc/webhook-receiver/aws-lambda';
import { redisIdempotencyStore } from '@kyc/webhook-receiver/redis';
import { Redis } from 'ioredis';

const { KYC_AUTH_KEY, KYC_SIGNING_SECRETS, REDIS_URL } = process.env;
if (!KYC_AUTH_KEY) throw new Error('Set KYC_AUTH_KEY to the Auth Key saved in the KYC dashboard.');
if (!REDIS_URL) throw new Error('Set REDIS_URL to the Redis every instance of this function shares.');
// "whsec_new whsec_old" during a rotation; unset, signatures are not checked (v1 needs none).
const signingSecrets = KYC_SIGNING_SECRETS?.split(/[\s,]+/).filter(Boolean) ?? [];

// Made once per instance, when Lambda loads the module; every invocation it serves reuses them.
const receiver = createWebhookReceiver({
  authKeys: KYC_AUTH_KEY,
  // Every delivery must then carry a valid webhook-signature over the body as sent (5-minute tolerance).
  ...(signingSecrets.length ? { signingSecrets } : {}),
  idempotencyStore: redisIdempotencyStore(new Redis(REDIS_URL), { keyPrefix: 'kyc:webhooks:' }),
  // Your database write or job enqueue goes here; keep it well under the function's timeout.
  onEvent: (event) => console.info(JSON.stringify(decide(event))),
});

export const handler = toLambdaHandler(receiver);
