import { randomBytes } from 'node:crypto';
import { HEADERS, JSON_CONTENT_TYPE, type VerificationStatus } from '@kyc/contracts';
import type { DeliveryView } from '../api/delivery-view.js';
import { SANDBOX_API } from '../api/sandbox-routes.js';
import type { PayloadShape } from '../domain/enum-values.js';
import { startSandbox } from '../start-sandbox.js';
import type { SandboxTelemetry } from '../telemetry/start-telemetry.js';
import type { Timeline } from './timeline.js';

const POLL_MS = 100;

/** The demo's handle on a running sandbox: its sandbox-only API, called like any integrator would. */
export async function startDemoSandbox(options: {
  dataDir: string;
  timeScale: number;
  trustedCa: string;
  timeline: Timeline;
  telemetry: SandboxTelemetry | undefined;
}) {
  const running = await startSandbox({
    ...(options.telemetry && { telemetry: options.telemetry }),
    dataDir: options.dataDir,
    timeScale: options.timeScale,
    allowLoopbackTargets: true,
    trustedCa: [options.trustedCa],
    logger: { warn: (m) => options.timeline.add('sandbox', `warning: ${m}`) },
  });
  const username = 'demo';
  const password = randomBytes(18).toString('base64url');
  await running.sandbox.addUser(username, password);
  options.timeline.add(
    'sandbox',
    `listening on ${running.url} (retry schedule ${options.timeScale}× faster); user "${username}" issued`,
  );
  const authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${running.url}${path}`, {
      method,
      headers: { [HEADERS.authorization]: authorization, [HEADERS.contentType]: JSON_CONTENT_TYPE },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} → ${response.status}: ${text}`);
    return JSON.parse(text) as T;
  }

  const seen = new Set<string>();
  async function deliveries(): Promise<DeliveryView[]> {
    const { deliveries: views } = await call<{ deliveries: DeliveryView[] }>('GET', SANDBOX_API.deliveries);
    for (const view of views) {
      for (const attempt of view.attempts) {
        const key = `${view.eventId}#${attempt.attempt}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const status = attempt.status === null ? '' : ` HTTP ${attempt.status}`;
        const next = view.state === 'pending' && view.nextAttemptAt ? `, next attempt at ${view.nextAttemptAt}` : '';
        options.timeline.add(
          'engine',
          `${view.sessionId}: attempt #${attempt.attempt} (round ${attempt.round}) ${attempt.outcome}${status} in ${attempt.latencyMs} ms${next}`,
        );
      }
    }
    return views;
  }

  return {
    url: running.url,
    username,
    password,
    configure: (webhookUrl: string, authKey: string) => call('PUT', SANDBOX_API.settings, { webhookUrl, authKey }),
    async createSession(status: VerificationStatus, shape: PayloadShape): Promise<string> {
      return (await call<{ id: string }>('POST', SANDBOX_API.sessions, { status, shape })).id;
    },
    async delivery(sessionId: string): Promise<DeliveryView> {
      return call<DeliveryView>('GET', `${SANDBOX_API.sessions}/${encodeURIComponent(sessionId)}/delivery`);
    },
    redeliver: (eventId: string) => call('POST', `${SANDBOX_API.deliveries}/${encodeURIComponent(eventId)}/redeliver`),
    /** Polls (bounded by `signal`) until each session's delivery is delivered in round `round`. */
    async waitForDeliveries(sessionIds: readonly string[], round: number, signal: AbortSignal): Promise<void> {
      while (!signal.aborted) {
        const views = await deliveries();
        const done = sessionIds.every((id) =>
          views.some((v) => v.sessionId === id && v.state === 'delivered' && v.attempts.some((a) => a.round >= round)),
        );
        if (done) return;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      throw new Error('deliveries did not complete in time');
    },
    close: () => running.close(),
  };
}
