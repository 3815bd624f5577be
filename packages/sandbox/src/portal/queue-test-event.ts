import { randomBytes } from 'node:crypto';
import { type DeliveryEngine, DeliveryEngineError } from '@kyc/delivery-engine';
import { STATE } from '../domain/enum-values.js';
import { authKeyHint } from '../domain/masked-auth-key.js';
import { resolveOutcome } from '../domain/outcome.js';
import { buildWebhookBody } from '../domain/webhook-body.js';
import type { CompanyRecord, SandboxStore } from '../store/sandbox-store.js';

/** A queued (or refused) test event, before its first attempt. */
export interface QueuedTestEvent {
  readonly eventId: string;
  readonly sessionId: string;
  /** The engine's reason when it refused the event (it is recorded as not sent). */
  readonly problem: string | undefined;
}

/**
 * Builds a clearly marked test webhook (session and event ids start with `test`) in the chosen
 * shape, records it in the portal's projection and queues it in the engine for `url`, with the
 * company's id (its Auth Key and signing secrets are given at send time, and a connected
 * `kyc-sandbox listen` receives it like any event).
 */
export async function queueTestEvent(
  store: SandboxStore,
  engine: DeliveryEngine,
  company: CompanyRecord,
  url: string,
  shape: 'v1' | 'status' | 'both',
  baseUrl: string,
): Promise<QueuedTestEvent> {
  const suffix = randomBytes(8).toString('hex');
  const now = Date.now();
  const session = {
    id: `test_${suffix}`,
    companyId: company.id,
    shortKey: 'TEST',
    state: STATE.FINISHED,
    outcome: resolveOutcome({ shape }),
    startedAt: now - 95_000,
    endedAt: now,
  };
  const eventId = `evt_test_${suffix}`;
  const body = JSON.stringify(buildWebhookBody(session, now, baseUrl));
  store.portal.insertDelivery({
    eventId,
    companyId: company.id,
    sessionId: session.id,
    shortKey: session.shortKey,
    kind: 'test',
    url,
    authKeyHint: authKeyHint(company.authKey),
    state: 'pending',
    note: undefined,
    createdAt: now,
    updatedAt: now,
  });
  try {
    await engine.enqueue({
      id: eventId,
      url,
      body,
      // The company's Auth Key and secrets come from the credentials hook when it is sent.
      companyId: String(company.id),
    });
  } catch (error) {
    if (!(error instanceof DeliveryEngineError)) throw error;
    store.portal.markRelayed(eventId, error.message, Date.now());
    return { eventId, sessionId: session.id, problem: error.message };
  }
  return { eventId, sessionId: session.id, problem: undefined };
}
