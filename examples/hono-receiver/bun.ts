/** The Hono app of app.ts on Bun: `KYC_AUTH_KEY='<the key saved in the dashboard>' bun bun.ts`. */
import { createApp } from './app.js';

const authKey = Bun.env.KYC_AUTH_KEY;
if (!authKey) throw new Error('Set KYC_AUTH_KEY to the Auth Key saved in the KYC dashboard.');
const app = createApp({ authKeys: authKey, onDecision: (decision) => console.info(JSON.stringify(decision)) });
const server = Bun.serve({ port: Number(Bun.env.PORT ?? 3000), fetch: app.fetch });
console.info(`KYC webhooks on ${server.url}webhooks/kyc (put TLS in front of it)`);
