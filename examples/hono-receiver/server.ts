/** Runs the Hono app of app.ts on Node. The same app: bun.ts (Bun), deno.ts (Deno), worker.ts (Cloudflare Workers). */
import { serve } from '@hono/node-server';
import { createApp } from './app.js';

const authKey = process.env.KYC_AUTH_KEY;
if (!authKey) throw new Error('Set KYC_AUTH_KEY to the Auth Key saved in the KYC dashboard.');
// "whsec_new whsec_old" during a rotation; unset, signatures are not checked (v1 needs none).
const signingSecrets = process.env.KYC_SIGNING_SECRETS?.split(/[\s,]+/).filter(Boolean) ?? [];
const app = createApp({
  authKeys: authKey,
  ...(signingSecrets.length ? { signingSecrets } : {}),
  onDecision: (d) => console.info(`${d.sessionId}: ${d.action} (${d.reason})`),
});
serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 3000) });
