import type { DeliveryFilter, DeliveryRecord, DeliverySummary, InsertOptions, StoreHealth } from '../store/store.js';
import type { LanesSnapshot } from './attempt-slots.js';
import type { WebhookEvent } from './prepare-event.js';

/** What `enqueue` resolves with once the event is stored. */
export interface EnqueueResult {
  /** The event id (Webhook-Id header). */
  readonly id: string;
  /** `false` when an event with this id was already stored: enqueue is idempotent per event id. */
  readonly created: boolean;
}

/** Options of `stop()`. */
export interface StopOptions {
  /** How long to let attempts in flight finish before aborting and releasing them (default: the deadline). */
  readonly graceMs?: number;
}

/** A running (or stopped) delivery engine. */
export interface DeliveryEngine<Transaction = never> {
  /**
   * Stores an event for delivery and resolves once it is durable, or once it is written in
   * `options.transaction` (Postgres: the caller's `pg` client inside `BEGIN`, so the business
   * change and the webhook commit together). Throws {@link DeliveryEngineError} on bad input.
   */
  enqueue(event: WebhookEvent, options?: InsertOptions<Transaction>): Promise<EnqueueResult>;
  /** Starts the delivery loop (idempotent). Enqueue works before `start()`: nothing is sent until then. */
  start(): Promise<void>;
  /** Stops claiming; waits for attempts in flight, aborts and releases what is left after `graceMs`. */
  stop(options?: StopOptions): Promise<void>;
  /** A delivery with its state, every attempt and every redelivery; `undefined` if unknown. */
  getDelivery(id: string): Promise<DeliveryRecord | undefined>;
  /** Deliveries newest first, filtered by state, URL and creation time. */
  listDeliveries(filter?: DeliveryFilter): Promise<DeliverySummary[]>;
  /** Starts a new round of attempts now, with the same Webhook-Id header, for a delivered or failed delivery. */
  redeliver(id: string): Promise<void>;
  /**
   * The delivery loop as a readiness probe sees it (synchronous, no store call).
   *
   * @example
   * ```ts
   * const { running, busyMs } = engine.loopHealth();
   * const ready = running && busyMs < 60_000; // else: not started, stopped, or stuck in a store call
   * ```
   */
  loopHealth(): LoopHealth;
}

/** What {@link DeliveryEngine.loopHealth} reports. */
export interface LoopHealth {
  /** `start()` has completed and `stop()` has not been called. */
  readonly running: boolean;
  /**
   * Real milliseconds the loop has spent in its current pass (claiming due work, reading the
   * next due time); 0 while it waits for work or for a free slot. A pass normally takes
   * milliseconds: a long one means a store call hangs (a half-open connection, a lock) and
   * nothing is being claimed, while `running` still says `true`.
   */
  readonly busyMs: number;
  /**
   * Attempts in flight in each lane, and the endpoints that count as slow (hanging or answering
   * after `slowAfterMs`): how many attempts each holds and for how long. A slow lane near its
   * capacity means many endpoints hang at once; the prompt lane is what the others use.
   */
  readonly lanes: LanesSnapshot;
  /**
   * The store's own account (stores that keep one: SQLite): whether it can write, whether another
   * engine fenced this one off, and how many finished results it holds until it can write. A probe
   * should report not-ready while `writable` is false: the loop claims nothing then.
   */
  readonly store?: StoreHealth;
}
