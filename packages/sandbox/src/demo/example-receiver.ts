import { HEADERS, type SessionDetails, SUGGESTED_ACTIONS, type VerificationStatus } from '@kyc/contracts';
import { createWebhookReceiver, type KycWebhookEvent, memoryIdempotencyStore } from '@kyc/webhook-receiver';
import { listen } from '../server/listen.js';
import type { Timeline } from './timeline.js';

/** What the example receiver observed, for the demo's final checks. */
export interface ReceiverLog {
  /** Session ids the handler ran for, in order (a failed run included). */
  readonly handled: string[];
  /** Requests answered 200 as duplicates (the handler did not run). */
  readonly duplicates: string[];
  /** Statuses answered, per session id. */
  readonly answers: Map<string, number[]>;
}

const sessionOf = (event: KycWebhookEvent) => event.sessionId;
const act = (status: VerificationStatus | undefined) =>
  status === undefined ? 'no status: nothing decided' : `${status} → ${SUGGESTED_ACTIONS[status]}`;

/**
 * The customer's side of the demo: a receiver built on `@kyc/webhook-receiver`, served over
 * HTTPS on loopback. It acts on each status as the specification suggests; a v1 body carries no
 * status, so the handler reads it from the body's `detailsURL` with `@kyc/client` (`details`).
 * Its handler fails once for `failOnce` so the sandbox's retry shows.
 */
export async function startExampleReceiver(options: {
  authKey: string;
  tls: { key: string; cert: string };
  failOnce: () => string | undefined;
  details: (detailsUrl: string) => Promise<SessionDetails>;
  timeline: Timeline;
}) {
  const log: ReceiverLog = { handled: [], duplicates: [], answers: new Map() };
  const failed = new Set<string>();
  const receiver = createWebhookReceiver({
    authKeys: [options.authKey],
    idempotencyStore: memoryIdempotencyStore(),
    // The sandbox is the sender here and sends traceparent: continue its trace (finish → handler).
    trustTraceContext: true,
    logger: {
      warn: (message) => options.timeline.add('receiver', `log: ${message}`),
      error: (message) => options.timeline.add('receiver', `log: ${message}`),
    },
    onEvent: async (event) => {
      const id = sessionOf(event);
      log.handled.push(id);
      const status =
        event.shape === 'v1'
          ? `v1 body (no status), read from detailsURL: ${act((await options.details(event.detailsURL ?? '')).status)}`
          : act(event.status);
      if (id === options.failOnce() && !failed.has(id)) {
        failed.add(id);
        options.timeline.add(
          'receiver',
          `handler for ${id} (${status}) fails on purpose → 500, the sandbox will retry`,
        );
        throw new Error('simulated outage in the customer handler');
      }
      options.timeline.add('receiver', `handler ran for ${id}: ${status} (shape ${event.shape})`);
    },
  });
  const server = await listen(
    async (request) => {
      const webhookId = request.headers.get(HEADERS.webhookId) ?? '-';
      const attempt = request.headers.get(HEADERS.webhookAttempt) ?? '?';
      const response = await receiver.handle(request);
      const text = await response.clone().text();
      try {
        const answer = JSON.parse(text) as { duplicate?: boolean };
        if (answer.duplicate) {
          log.duplicates.push(webhookId);
          options.timeline.add(
            'receiver',
            `Webhook-Id ${webhookId} (attempt ${attempt}) is a duplicate → 200, handler not run`,
          );
        }
      } catch {
        // A non-JSON answer is reported by its status alone.
      }
      log.answers.set(webhookId, [...(log.answers.get(webhookId) ?? []), response.status]);
      options.timeline.add('receiver', `answered ${response.status} to Webhook-Id ${webhookId} (attempt ${attempt})`);
      return response;
    },
    { port: 0, host: '127.0.0.1', tls: options.tls },
  );
  return { url: `${server.url}/kyc/webhook`, log, close: () => server.close() };
}
