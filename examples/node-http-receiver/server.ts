/**
 * node:http receiver for KYC completion webhooks, with no framework. In production run it
 * behind TLS (a proxy, or `node:https` with your certificate): the service only sends to HTTPS.
 */
import { createServer, type Server } from 'node:http';
import { decide, type KycDecision } from '@kyc/example-actions';
import { createWebhookReceiver, type IdempotencyStore } from '@kyc/webhook-receiver';
import { toNodeHandler } from '@kyc/webhook-receiver/node';

export interface ServerOptions {
  /** The Auth Key saved in the KYC dashboard; several during a rotation. */
  readonly authKeys: string | readonly string[];
  /** Where the decision goes: your database write or job enqueue. Keep it fast (< 25 s). */
  readonly onDecision: (decision: KycDecision) => Promise<void> | void;
  /** Shared by all replicas in production (`@kyc/webhook-receiver/redis` or `/postgres`). */
  readonly idempotencyStore?: IdempotencyStore;
}

export function createWebhookServer({ authKeys, onDecision, idempotencyStore }: ServerOptions): Server {
  const receiver = createWebhookReceiver({
    authKeys,
    ...(idempotencyStore ? { idempotencyStore } : {}),
    onEvent: (event) => onDecision(decide(event)),
  });
  const handleWebhook = toNodeHandler(receiver);
  return createServer((req, res) => {
    if (req.url === '/webhooks/kyc') return void handleWebhook(req, res);
    res.writeHead(404).end();
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const authKey = process.env.KYC_AUTH_KEY;
  if (!authKey) throw new Error('Set KYC_AUTH_KEY to the Auth Key saved in the KYC dashboard.');
  createWebhookServer({
    authKeys: authKey,
    onDecision: (d) => console.info(`${d.sessionId}: ${d.action} (${d.reason})`),
  }).listen(Number(process.env.PORT ?? 3000));
}
