import { DeliveryEngineError } from '../delivery-engine-error.js';
import type { DeliveryStore, InsertOptions } from '../store/store.js';
import type { EngineTelemetry } from '../telemetry/engine-telemetry.js';
import { showId } from './check-input.js';
import type { Clock } from './clock.js';
import type { EnqueueResult } from './delivery-engine.js';
import { newEventId } from './event-id.js';
import { prepareEvent, type WebhookEvent } from './prepare-event.js';

/** What storing an event needs of the engine. */
export interface StoreEventContext<Transaction> {
  readonly store: DeliveryStore<Transaction>;
  readonly clock: Clock;
  readonly telemetry: EngineTelemetry;
  readonly checkUrl: (url: unknown) => Promise<URL>;
  /** The store's migrations, run once. */
  readonly ready: () => Promise<void>;
}

/**
 * `enqueue` without the wake-up: checks the event and its URL, stores it (durable, or written in
 * the caller's transaction) under an `enqueue` span, and refuses an id already stored with a
 * different URL or body.
 */
export async function storeEvent<Transaction>(
  context: StoreEventContext<Transaction>,
  event: WebhookEvent,
  insertOptions: InsertOptions<Transaction> | undefined,
): Promise<EnqueueResult> {
  if (event === null || typeof event !== 'object') {
    throw new DeliveryEngineError('invalid_event', 'enqueue: expected an event object { url, body, authKey?, id? }');
  }
  if (insertOptions !== undefined && (insertOptions === null || typeof insertOptions !== 'object')) {
    throw new DeliveryEngineError('invalid_option', 'enqueue: options must be an object such as { transaction }');
  }
  const { store, telemetry } = context;
  const id = event.id ?? newEventId();
  const span = telemetry.startEnqueue(typeof id === 'string' ? id.slice(0, 256) : '');
  try {
    const url = await context.checkUrl(event.url);
    const delivery = prepareEvent({ ...event, id }, url, context.clock.now(), span.traceParent);
    span.identify(delivery);
    await context.ready();
    const { created } = await store.insert(delivery, insertOptions);
    if (!created && insertOptions?.transaction === undefined) {
      const existing = await store.get(delivery.id);
      if (existing !== undefined && (existing.url !== delivery.url || existing.body !== delivery.body)) {
        throw new DeliveryEngineError(
          'event_id_conflict',
          `enqueue: event id ${showId(delivery.id)} is already stored with a different URL or body`,
        );
      }
    }
    span.end();
    return { id: delivery.id, created };
  } catch (error) {
    span.end(error);
    throw error;
  }
}
