/** Runs the Hono app of app.ts on Node. The same app: bun.ts (Bun), deno.ts (Deno), worker.ts (Cloudflare Workers). */
import { serve } from '@hono/node-server';
import { createApp } from './app.js';

const authKey = process.env.KYC_AUTH_KEY;
if (!authKey) throw new Error('Set KYC_AUTH_KEY to the Auth Key saved in the KYC dashboard.');
const app = createApp({
  authKeys: authKey,
  onDecision: (d) => console.info(`${d.sessionId}: ${d.action} (${d.reason})`),
});
serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 3000) });
