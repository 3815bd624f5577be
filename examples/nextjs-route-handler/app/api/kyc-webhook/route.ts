/**
 * Next.js App Router route handler: `app/api/kyc-webhook/route.ts`.
 *
 * Route handlers get the Fetch `Request` with its body unread, which is exactly what the
 * receiver needs; never call `request.json()` before it. Serverless instances do not share
 * memory, so production needs a shared idempotency store (Redis or Postgres).
 */
import { decide } from '@kyc/example-actions';
import { createWebhookReceiver } from '@kyc/webhook-receiver';
import { recordDecision } from '../../../decisions.js';

export const runtime = 'nodejs'; // the receiver also runs on 'edge': see ../kyc-webhook-edge/route.ts
export const dynamic = 'force-dynamic';

// `next build` loads this module to read its config: KYC_AUTH_KEYS must be set there too.
// KYC_SIGNING_SECRETS: "whsec_new whsec_old" during a rotation; unset, signatures are not checked (v1 needs none).
const signingSecrets = (process.env.KYC_SIGNING_SECRETS ?? '').split(/[\s,]+/).filter(Boolean);
const receiver = createWebhookReceiver({
  authKeys: (process.env.KYC_AUTH_KEYS ?? '').split(',').filter(Boolean),
  // Every delivery must then carry a valid webhook-signature (raw bytes, 5-minute tolerance).
  ...(signingSecrets.length ? { signingSecrets } : {}),
  onEvent: (event) => recordDecision(decide(event)),
});

export function POST(request: Request): Promise<Response> {
  return receiver.handle(request);
}

// Next answers a method a route does not export with its own 405 and no Allow header: the
// receiver's says `Allow: POST`, as on every other framework.
export const GET = POST;
