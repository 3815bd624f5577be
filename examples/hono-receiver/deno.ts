/**
 * The Hono app of app.ts on Deno:
 * `KYC_AUTH_KEY='<the key saved in the dashboard>' KYC_SIGNING_SECRETS='whsec_…'
 *   deno run --allow-net --allow-env=KYC_AUTH_KEY,KYC_SIGNING_SECRETS,PORT deno.ts`.
 */
import { createApp } from './app.js';

const authKey = Deno.env.get('KYC_AUTH_KEY');
if (!authKey) throw new Error('Set KYC_AUTH_KEY to the Auth Key saved in the KYC dashboard.');
// "whsec_new whsec_old" during a rotation; unset, signatures are not checked (v1 needs none).
const signingSecrets =
  Deno.env
    .get('KYC_SIGNING_SECRETS')
    ?.split(/[\s,]+/)
    .filter(Boolean) ?? [];
const app = createApp({
  authKeys: authKey,
  ...(signingSecrets.length ? { signingSecrets } : {}),
  onDecision: (decision) => console.info(JSON.stringify(decision)),
});
Deno.serve(
  {
    port: Number(Deno.env.get('PORT') ?? 3000),
    onListen: ({ hostname, port }) =>
      console.info(`KYC webhooks on http://${hostname}:${port}/webhooks/kyc (put TLS in front of it)`),
  },
  app.fetch,
);
