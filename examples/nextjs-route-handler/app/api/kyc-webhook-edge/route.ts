/**
 * The same route on the Edge runtime (Vercel Edge Functions, `export const runtime = 'edge'`):
 * the receiver uses Web-standard APIs only, and is made at module scope as on Node. An edge
 * instance shares no memory with another: production needs a shared idempotency store.
 */
import { decide } from '@kyc/example-actions';
import { createWebhookReceiver } from '@kyc/webhook-receiver';

export const runtime = 'edge';
export const dynamic = 'force-dynamic';

// `next build` loads this module to read its config: KYC_AUTH_KEYS must be set there too.
// KYC_SIGNING_SECRETS: "whsec_new whsec_old" during a rotation; unset, signatures are not checked (v1 needs none).
const signingSecrets = (process.env.KYC_SIGNING_SECRETS ?? '').split(/[\s,]+/).filter(Boolean);
const receiver = createWebhookReceiver({
  authKeys: (process.env.KYC_AUTH_KEYS ?? '').split(',').filter(Boolean),
  // Every delivery must then carry a valid webhook-signature (raw bytes, 5-minute tolerance).
  ...(signingSecrets.length ? { signingSecrets } : {}),
  onEvent: (event) => console.info(JSON.stringify(decide(event))),
});

export function POST(request: Request): Promise<Response> {
  return receiver.handle(request);
}

// Next answers a method a route does not export with its own 405 and no Allow header: the
// receiver's says `Allow: POST`, as on every other framework.
export const GET = POST;
