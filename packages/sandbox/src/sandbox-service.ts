import type { SessionDetails } from '@kyc/contracts';
import {
  type DeliveryEngine,
  DeliveryEngineError,
  type DeliveryRecord,
  formatTraceparent,
  type ScaledClock,
  validateAuthKey,
  validateWebhookUrl,
} from '@kyc/delivery-engine';
import { trace } from '@opentelemetry/api';
import type { OutcomeRequest } from './domain/outcome.js';
import { resolveOutcome } from './domain/outcome.js';
import type { SessionRecord } from './domain/session-record.js';
import { buildWebhookBody, sessionDetails } from './domain/webhook-body.js';
import type { OutboxRelay } from './engine/outbox-relay.js';
import type { OutboxRow } from './store/outbox.js';
import type { CompanyRecord, SandboxStore } from './store/sandbox-store.js';

/** The company's webhook settings as the API and dashboard show them: never the key itself. */
export interface WebhookSettings {
  readonly webhookUrl: string | null;
  readonly hasAuthKey: boolean;
}

/** A field-level validation failure of a settings change. */
export interface SettingsProblem {
  readonly field: 'webhookUrl' | 'authKey';
  readonly code: string;
  readonly message: string;
}

/** A session's webhook as the sandbox tracks it: the outbox row and, once relayed, the engine's delivery. */
export interface SessionDelivery {
  readonly outbox: OutboxRow;
  readonly delivery: DeliveryRecord | undefined;
}

/** The use cases shared by the service API, the sandbox API and the dashboard. */
export class SandboxService {
  constructor(
    readonly store: SandboxStore,
    readonly engine: DeliveryEngine,
    readonly clock: ScaledClock,
    private readonly relay: OutboxRelay,
    private readonly baseUrl: () => string,
    private readonly allowPrivateNetworks: readonly string[] | undefined,
  ) {}

  now(): number {
    return Date.now();
  }

  details(session: SessionRecord): SessionDetails {
    return sessionDetails(session, this.baseUrl());
  }

  createSession(companyId: number, request: OutcomeRequest): SessionRecord {
    return this.store.createSession(companyId, resolveOutcome(request), this.now());
  }

  /** Finishes a session and queues its webhook once; `undefined` when the company has no such session. */
  async finishSession(
    companyId: number,
    sessionId: string,
  ): Promise<{ session: SessionRecord; finished: boolean } | undefined> {
    const active = trace.getActiveSpan()?.spanContext();
    const result = this.store.finishSession(
      companyId,
      sessionId,
      this.now(),
      (session, endedAt) => JSON.stringify(buildWebhookBody(session, endedAt, this.baseUrl())),
      active === undefined ? undefined : formatTraceparent(active),
    );
    // The outbox row is committed, so the answer need not wait for the relay (whose enqueue may
    // resolve a DNS name); the relay hands the event to the engine now, or on its next pass.
    if (result?.finished) void this.relay.relay().catch(() => undefined);
    return result;
  }

  settings(company: CompanyRecord): WebhookSettings {
    return { webhookUrl: company.webhookUrl ?? null, hasAuthKey: company.authKey !== undefined };
  }

  /**
   * Validates and stores the webhook settings with the engine's own rules, so a URL the
   * engine would refuse to deliver to is refused here, with its message.
   * `authKey: undefined` keeps the current key, `null` removes it.
   */
  async updateSettings(
    companyId: number,
    change: { webhookUrl: string | null; authKey?: string | null | undefined },
  ): Promise<SettingsProblem[]> {
    const problems: SettingsProblem[] = [];
    let url: string | null = null;
    if (change.webhookUrl !== null && change.webhookUrl.trim() !== '') {
      const checked = await validateWebhookUrl(
        change.webhookUrl.trim(),
        this.allowPrivateNetworks ? { allowPrivateNetworks: this.allowPrivateNetworks } : {},
      );
      if (checked.ok) url = checked.url.toString();
      else problems.push({ field: 'webhookUrl', code: checked.code, message: checked.message });
    }
    if (typeof change.authKey === 'string') {
      const checked = validateAuthKey(change.authKey);
      if (!checked.ok) problems.push({ field: 'authKey', code: checked.code, message: checked.message });
    }
    if (problems.length === 0) this.store.updateWebhook(companyId, url, change.authKey, this.now());
    return problems;
  }

  async sessionDelivery(sessionId: string): Promise<SessionDelivery | undefined> {
    const outbox = this.store.outbox.forSession(sessionId);
    if (!outbox) return undefined;
    return {
      outbox,
      delivery: outbox.relayedAt === undefined ? undefined : await this.engine.getDelivery(outbox.eventId),
    };
  }

  async deliveries(companyId: number, limit = 50): Promise<SessionDelivery[]> {
    const rows = this.store.outbox.list(companyId, limit);
    return Promise.all(
      rows.map(async (outbox) => ({
        outbox,
        delivery: outbox.relayError === undefined ? await this.engine.getDelivery(outbox.eventId) : undefined,
      })),
    );
  }

  /** Starts a new round of attempts for one of this company's deliveries. */
  async redeliver(companyId: number, eventId: string): Promise<'started' | 'not_found' | 'in_progress'> {
    if (!this.store.outbox.byEvent(eventId, companyId)) return 'not_found';
    try {
      await this.engine.redeliver(eventId);
      return 'started';
    } catch (error) {
      if (error instanceof DeliveryEngineError && error.code === 'in_progress') return 'in_progress';
      if (error instanceof DeliveryEngineError && error.code === 'not_found') return 'not_found';
      throw error;
    }
  }
}
