// A Worker that builds everything at module scope, the way most Workers and Hono apps make
// their objects: workerd runs this top level once per isolate, and refuses the whole script if
// it draws random values, starts a timer or does I/O there. The bindings come from
// `cloudflare:workers`, as a Worker reads them outside a request.
import { env } from 'cloudflare:workers';
import { auditTrail, callbackAuditSink } from '../../src/audit.js';
import { type DurableObjectNamespaceLike, durableObjectIdempotencyStore } from '../../src/cloudflare.js';
import { createWebhookReceiver, memoryIdempotencyStore, type WebhookReceiver } from '../../src/index.js';
import { createTestRequest, samples } from '../../src/testing.js';

export { KycIdempotencyObject } from '../../src/cloudflare.js';

interface Env {
  readonly KYC_AUTH_KEY: string;
  readonly KYC_SIGNING_SECRET: string;
  readonly KYC_IDEMPOTENCY: DurableObjectNamespaceLike;
}
const bindings = env as unknown as Env;

const handled: string[] = [];
const audited: string[] = [];
const onEvent = (route: string) => (event: { sessionId: string }) => {
  handled.push(`${route}:${event.sessionId}`);
};

const receivers: Record<string, WebhookReceiver> = {
  // The default store (memory), made by the receiver itself.
  '/default': createWebhookReceiver({ authKeys: bindings.KYC_AUTH_KEY, onEvent: onEvent('default') }),
  '/memory': createWebhookReceiver({
    authKeys: bindings.KYC_AUTH_KEY,
    idempotencyStore: memoryIdempotencyStore({ maxEntries: 100 }),
    onEvent: onEvent('memory'),
  }),
  '/durable-object': createWebhookReceiver({
    authKeys: bindings.KYC_AUTH_KEY,
    idempotencyStore: durableObjectIdempotencyStore(bindings.KYC_IDEMPOTENCY),
    onEvent: onEvent('durable-object'),
  }),
  // Every option that keeps state: signatures, the audit trail, telemetry, trusted trace context.
  '/everything': createWebhookReceiver({
    authKeys: [bindings.KYC_AUTH_KEY, 'kyc_previous_key_0123456789'],
    signingSecrets: bindings.KYC_SIGNING_SECRET,
    audit: auditTrail({
      sink: callbackAuditSink((entries) => {
        for (const entry of entries) audited.push(entry.outcome);
      }),
    }),
    trustTraceContext: true,
    onEvent: onEvent('everything'),
  }),
};

// The test kit's samples are plain data, fine at module scope; a Request with a body is not
// (workerd refuses one there), so `createTestRequest` runs in the handler.
const fixture = structuredClone(samples.status);

export default {
  async fetch(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === '/state') {
      return Response.json({
        handled,
        audited,
        fixture: (
          await receivers['/memory']?.handle(createTestRequest({ payload: fixture, authKey: bindings.KYC_AUTH_KEY }))
        )?.status,
      });
    }
    const receiver = receivers[pathname];
    return receiver === undefined ? new Response('Not Found', { status: 404 }) : receiver.handle(request);
  },
};
