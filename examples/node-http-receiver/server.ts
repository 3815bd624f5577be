/**
 * node:http receiver for KYC completion webhooks, with no framework. The service only sends
 * to HTTPS: give `tls` (your certificate) or run it behind a TLS-terminating proxy.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Server } from 'node:net';
import { pathToFileURL } from 'node:url';
import { decide, type KycDecision } from '@kyc/example-actions';
import { createWebhookReceiver, type IdempotencyStore } from '@kyc/webhook-receiver';
import { toNodeHandler } from '@kyc/webhook-receiver/node';

export interface ServerOptions {
  /** The Auth Key saved in the KYC dashboard; several during a rotation. */
  readonly authKeys: string | readonly string[];
  /**
   * The signing secrets (`whsec_…`) from Settings → Signing secret: one, or the new and the old
   * during a rotation's overlap. Every delivery must then carry a valid `webhook-signature`.
   */
  readonly signingSecrets?: string | readonly string[];
  /** Where the decision goes: your database write or job enqueue. Keep it fast (< 25 s). */
  readonly onDecision: (decision: KycDecision) => Promise<void> | void;
  /** Shared by all replicas in production (`@kyc/webhook-receiver/redis` or `/postgres`). */
  readonly idempotencyStore?: IdempotencyStore;
  /** PEM key and certificate to serve HTTPS directly; omit behind a TLS proxy. */
  readonly tls?: { readonly key: string; readonly cert: string };
}

export function createWebhookServer({
  authKeys,
  signingSecrets,
  onDecision,
  idempotencyStore,
  tls,
}: ServerOptions): Server {
  const receiver = createWebhookReceiver({
    authKeys,
    // Verified over the raw bytes with a 5-minute timestamp tolerance; a bad one gets 401.
    ...(signingSecrets ? { signingSecrets } : {}),
    ...(idempotencyStore ? { idempotencyStore } : {}),
    onEvent: (event) => onDecision(decide(event)),
  });
  const handleWebhook = toNodeHandler(receiver); // reads the raw body itself: no body parser
  const listener: Parameters<typeof createServer>[1] = (req, res) => {
    if (req.url === '/webhooks/kyc') return void handleWebhook(req, res);
    res.writeHead(404).end();
  };
  return tls ? createHttpsServer(tls, listener) : createServer(listener);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { KYC_AUTH_KEY: authKey, TLS_KEY_FILE: keyFile, TLS_CERT_FILE: certFile, PORT: port = '3000' } = process.env;
  if (!authKey) throw new Error('Set KYC_AUTH_KEY to the Auth Key saved in the KYC dashboard.');
  // "whsec_new whsec_old" during a rotation; unset, signatures are not checked (v1 needs none).
  const signingSecrets = process.env.KYC_SIGNING_SECRETS?.split(/[\s,]+/).filter(Boolean);
  const tls =
    keyFile && certFile ? { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8') } : undefined;
  createWebhookServer({
    authKeys: authKey,
    ...(signingSecrets?.length ? { signingSecrets } : {}),
    onDecision: (d) => console.info(`${d.sessionId}: ${d.action} (${d.reason})`),
    ...(tls ? { tls } : {}),
  }).listen(Number(port), () =>
    console.info(`KYC webhooks on ${tls ? 'https' : 'http'}://127.0.0.1:${port}/webhooks/kyc`),
  );
}
