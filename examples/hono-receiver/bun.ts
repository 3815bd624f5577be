/**
 * The Hono app of app.ts on Bun:
 * `KYC_AUTH_KEY='<the key saved in the dashboard>' KYC_SIGNING_SECRETS='whsec_…' bun bun.ts`.
 */
import { createApp } from './app.js';

const authKey = Bun.env.KYC_AUTH_KEY;
if (!authKey) throw new Error('Set KYC_AUTH_KEY to the Auth Key saved in the KYC dashboard.');
// "whsec_new whsec_old" during a rotation; unset, signatures are not checked (v1 needs none).
const signingSecrets = Bun.env.KYC_SIGNING_SECRETS?.split(/[\s,]+/).filter(Boolean) ?? [];
const app = createApp({
  authKeys: authKey,
  ...(signingSecrets.length ? { signingSecrets } : {}),
  onDecision: (decision) => console.info(JSON.stringify(decision)),
});
const server = Bun.serve({ port: Number(Bun.env.PORT ?? 3000), fetch: app.fetch });
console.info(`KYC webhooks on ${server.url}webhooks/kyc (put TLS in front of it)`);
