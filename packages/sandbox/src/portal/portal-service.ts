import { WEBHOOK_RESPONSE_DEADLINE_MS } from '@kyc/contracts';
import { type DeliveryEngine, DeliveryEngineError, type DeliveryRecord, type ScaledClock } from '@kyc/delivery-engine';
import type { ListenerInfo } from '../listen/listener-session.js';
import { deliveryUrlOf, isListenerUrl } from '../listen/listener-url.js';
import type { SandboxStore } from '../store/sandbox-store.js';
import { type DeliveryFilterView, encodeCursor, PAGE_SIZE } from './delivery-query.js';
import { deliveryListItem, prettyBody } from './delivery-row-view.js';
import { endpointHealth } from './endpoint-health.js';
import type { PortalAction } from './portal-action-store.js';
import type { PortalListQuery } from './portal-store.js';
import {
  type ActionResult,
  type Actor,
  type AttemptDetail,
  type DeliveryDetail,
  type DeliveryPage,
  type EndpointHealth,
  type Forwarding,
  forwardingView,
  PortalActionError,
} from './portal-views.js';
import { queueTestEvent } from './queue-test-event.js';
import { attemptDetails, requestHeaders } from './request-view.js';

export {
  type ActionResult,
  type Actor,
  type AttemptDetail,
  type DeliveryDetail,
  type DeliveryListItem,
  type DeliveryPage,
  type EndpointHealth,
  type Forwarding,
  PortalActionError,
} from './portal-views.js';

/** The most failed deliveries one Replay failed click queues; the confirmation says so when there are more. */
export const MAX_REPLAY = 10_000;
/**
 * The webhook portal's use cases: the delivery log, the attempt inspector, redelivery, replay
 * of failed deliveries, test events and endpoint health. Every read and action is scoped to
 * the actor's company; the engine's store stays the source of truth for attempts.
 */
export class PortalService {
  /** Fires `change` after every recorded attempt, redelivery or new event (for live pages). */
  readonly changes = new EventTarget();

  constructor(
    private readonly store: SandboxStore,
    private readonly engine: DeliveryEngine,
    private readonly clock: ScaledClock,
    private readonly baseUrl: () => string,
    /** The company's connected `kyc-sandbox listen`, if any. */
    private readonly listenerOf: (companyId: number) => ListenerInfo | undefined = () => undefined,
    /** The engine's response deadline (shorter than the protocol's only under a time scale). */
    private readonly deadlineMs = WEBHOOK_RESPONSE_DEADLINE_MS,
  ) {}

  /** Whether the company's deliveries go to a `kyc-sandbox listen` right now, from where and since when. */
  forwarding(actor: Pick<Actor, 'companyId'>): Forwarding | null {
    const listener = this.listenerOf(actor.companyId);
    return listener === undefined ? null : forwardingView(listener);
  }

  notify(companyId: number | undefined): void {
    this.changes.dispatchEvent(new CustomEvent('change', { detail: companyId }));
  }

  /** Brings the projection up to date with the engine: after a crash between the two, and for old data folders. */
  async reconcile(): Promise<void> {
    this.store.portal.backfillFromOutbox(Date.now());
    let after = '';
    for (let batch = 0; batch < 1000; batch++) {
      const ids = this.store.portal.openEventIds(200, after);
      if (ids.length === 0) return;
      for (const id of ids) {
        const record = await this.engine.getDelivery(id);
        if (record) this.#sync(record);
      }
      after = ids[ids.length - 1] ?? after;
    }
  }

  /** Records the engine's attempts of one delivery in the projection (repeats change nothing). */
  #sync(record: DeliveryRecord): void {
    const log = record.attemptLog;
    log.forEach((attempt, i) => {
      const last = i === log.length - 1;
      this.store.portal.recordAttempt(
        {
          eventId: record.id,
          attempt: attempt.attempt,
          at: this.clock.toWall(attempt.startedAt),
          outcome: attempt.outcome,
          status: attempt.status,
          latencyMs: attempt.latencyMs,
          error: attempt.errorMessage,
        },
        last ? record.state : 'pending',
        last && record.nextAttemptAt !== undefined ? this.clock.toWall(record.nextAttemptAt) : undefined,
        Date.now(),
      );
    });
    if (record.state === 'pending' && record.round > 1 && record.roundAttempts === 0) {
      this.store.portal.markRedelivered(record.id, Date.now());
    }
  }

  list(actor: Actor, query: PortalListQuery, filter: DeliveryFilterView): DeliveryPage {
    const { rows, more } = this.store.portal.list(actor.companyId, query);
    const backwards = query.before !== undefined;
    const first = rows[0];
    const last = rows[rows.length - 1];
    const hasNext = backwards ? true : more;
    const hasPrev = backwards ? more : query.after !== undefined;
    return {
      deliveries: rows.map(deliveryListItem),
      filter,
      pageSize: PAGE_SIZE,
      nextCursor: hasNext && last ? encodeCursor(last) : null,
      prevCursor: hasPrev && first ? encodeCursor(first) : null,
    };
  }

  async detail(actor: Actor, eventId: string): Promise<DeliveryDetail | undefined> {
    const row = this.store.portal.get(actor.companyId, eventId);
    if (!row) return undefined;
    const record =
      row.state === 'queued' || row.state === 'not_sent' ? undefined : await this.engine.getDelivery(eventId);
    if (record) this.#sync(record);
    const fresh = this.store.portal.get(actor.companyId, eventId) ?? row;
    const body = record?.body ?? this.store.outbox.byEvent(eventId, actor.companyId)?.body ?? '';
    const forwards = this.store.forwards.forEvent(actor.companyId, eventId);
    return {
      ...deliveryListItem(fresh),
      request: {
        method: 'POST',
        url: row.url ?? null,
        toListener: isListenerUrl(row.url),
        headers: requestHeaders(row, record?.attemptLog.at(-1)),
        body: prettyBody(body),
        bodyBytes: Buffer.byteLength(body),
      },
      attemptLog: attemptDetails(record, this.clock, forwards, this.store.signingSecrets.usesOf(eventId)),
      redeliveries: (record?.redeliveries ?? []).map((r) => ({
        round: r.round,
        requestedAt: new Date(this.clock.toWall(r.requestedAt)).toISOString(),
      })),
      actions: this.store.portal.actions
        .actionsFor(actor.companyId, eventId)
        .map((a) => ({ action: a.action, username: a.username, at: new Date(a.createdAt).toISOString() })),
      canRedeliver: fresh.state === 'delivered' || fresh.state === 'failed',
    };
  }

  /**
   * Runs an action once per idempotency key (one click): a repeat returns the first result,
   * a repeat while the first is still running is `busy`, and a key used for another action
   * is refused. The entry stays as the audit log of the action.
   */
  async #once(
    actor: Actor,
    key: string,
    action: ActionResult['action'],
    target: string | undefined,
    run: () => Promise<ActionResult>,
  ): Promise<ActionResult & { repeated: boolean }> {
    const entry = { action, target, userId: actor.userId, username: actor.username, now: Date.now() };
    const existing: PortalAction | undefined = this.store.portal.actions.beginAction(actor.companyId, key, entry);
    if (existing) {
      if (existing.action !== action || existing.target !== target) {
        throw new PortalActionError('key_reused', 'This idempotency key was already used for another action.');
      }
      if (existing.result === undefined) throw new PortalActionError('busy', 'This action is still running.');
      return { ...(existing.result as ActionResult), repeated: true };
    }
    let result: ActionResult;
    try {
      result = await run();
    } catch (error) {
      this.store.portal.actions.abandonAction(actor.companyId, key);
      throw error;
    }
    this.store.portal.actions.finishAction(actor.companyId, key, result);
    this.notify(actor.companyId);
    return { ...result, repeated: false };
  }

  /** Queues a new round of attempts for one delivery through the engine's durable queue. */
  async redeliver(actor: Actor, eventId: string, key: string) {
    if (!this.store.portal.get(actor.companyId, eventId)) {
      throw new PortalActionError('not_found', 'No delivery with this id.');
    }
    return this.#once(actor, key, 'redeliver', eventId, async () => ({
      action: 'redeliver',
      eventId,
      outcome: (await this.#queueRedelivery(eventId)) ? 'queued' : 'in_progress',
    }));
  }

  async #queueRedelivery(eventId: string): Promise<boolean> {
    try {
      await this.engine.redeliver(eventId);
    } catch (error) {
      if (error instanceof DeliveryEngineError && (error.code === 'in_progress' || error.code === 'not_found')) {
        return false;
      }
      throw error;
    }
    this.store.portal.markRedelivered(eventId, Date.now());
    return true;
  }

  /** The recorded result of one click, to show after the redirect that follows it. */
  actionResult(actor: Actor, key: string): ActionResult | undefined {
    return this.store.portal.actions.getAction(actor.companyId, key)?.result as ActionResult | undefined;
  }

  /** How many deliveries Replay failed would queue (the confirmation step). */
  failedSince(actor: Actor, since: number): { since: string; failed: number } {
    return { since: new Date(since).toISOString(), failed: this.store.portal.countFailedSince(actor.companyId, since) };
  }

  /** Redelivers every failed delivery created since `since`, once each, through the engine's queue. */
  async replayFailed(actor: Actor, since: number, key: string) {
    const sinceIso = new Date(since).toISOString();
    return this.#once(actor, key, 'replay_failed', `since:${sinceIso}`, async () => {
      const queued: string[] = [];
      let skipped = 0;
      for (const id of this.store.portal.failedSince(actor.companyId, since, MAX_REPLAY)) {
        if (await this.#queueRedelivery(id)) queued.push(id);
        else skipped++;
      }
      // Recorded before the result: the page it leads to lists exactly these.
      this.store.portal.actions.recordReplayed(actor.companyId, key, queued);
      return { action: 'replay_failed', since: sinceIso, queued: queued.length, skipped };
    });
  }

  /**
   * Sends a clearly marked test webhook (session and event ids start with `test`) to the
   * company's configured URL through the engine (its URL checks, queue and attempt log), and
   * waits for the first attempt so the page can show the answer.
   */
  async sendTestEvent(actor: Actor, shape: 'v1' | 'status' | 'both', key: string) {
    const company = this.store.getCompany(actor.companyId);
    // With no URL saved, the company's kyc-sandbox listen receives it (as any other event).
    const url = company === undefined ? undefined : deliveryUrlOf(company);
    if (company === undefined || url === undefined) {
      throw new PortalActionError(
        'no_webhook_url',
        'Save a webhook URL in Settings (or run kyc-sandbox listen) before sending a test event.',
      );
    }
    return this.#once(actor, key, 'test_event', undefined, async () => {
      const queued = await queueTestEvent(this.store, this.engine, company, url, shape, this.baseUrl());
      const base = { action: 'test_event' as const, eventId: queued.eventId, sessionId: queued.sessionId, shape };
      if (queued.problem !== undefined) {
        return { ...base, outcome: 'not_sent' as const, attempt: null, problem: queued.problem };
      }
      this.notify(actor.companyId);
      const detail = await this.#firstAttempt(actor, queued.eventId);
      return {
        ...base,
        outcome: detail ? ('answered' as const) : ('no_answer_yet' as const),
        attempt: detail ?? null,
        problem: null,
      };
    });
  }

  async #firstAttempt(actor: Actor, eventId: string): Promise<AttemptDetail | undefined> {
    const until = Date.now() + WEBHOOK_RESPONSE_DEADLINE_MS + 5000;
    while (Date.now() < until) {
      const record = await this.engine.getDelivery(eventId);
      if (record && record.attemptLog.length > 0) return (await this.detail(actor, eventId))?.attemptLog[0];
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return undefined;
  }

  health(actor: Actor, now = Date.now()): EndpointHealth {
    const running = this.engine.loopHealth();
    return endpointHealth(this.store, actor.companyId, now, {
      lanes: running.running ? running.lanes : undefined,
      deadlineMs: this.deadlineMs,
    });
  }
}
