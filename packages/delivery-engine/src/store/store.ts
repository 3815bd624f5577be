/**
 * The storage contract of the delivery engine. SQLite and Postgres implement it and both pass
 * one conformance suite (`test/store-conformance.ts`). Every time is epoch milliseconds taken
 * from the engine's clock, so an injected clock drives the whole schedule, leases included.
 */

/** Where a delivery is in its life. In-flight work is `pending` with a lease (see {@link DeliveryClaim}). */
export type DeliveryState = 'pending' | 'delivered' | 'failed';

/** An event as the engine stores it before `enqueue` resolves. */
export interface NewDelivery {
  /** The event id: the Webhook-Id header, stable across attempts and redeliveries; unique per store. */
  readonly id: string;
  readonly url: string;
  /** `scheme://host:port` of `url`: the unit of per-endpoint concurrency. */
  readonly origin: string;
  /** The company's Auth Key; sent as a Bearer token. Stored sealed, never returned by reads. */
  readonly authKey: string | undefined;
  /**
   * A Standard Webhooks `whsec_…` secret for this endpoint, or several separated by spaces (one
   * signature each, during a rotation). Stored sealed, never returned by reads.
   */
  readonly signingSecret: string | undefined;
  /** The JSON body, byte for byte as it is sent. */
  readonly body: string;
  readonly createdAt: number;
  /** The session the body is about (span attribute `kyc.session.id`). */
  readonly sessionId?: string | undefined;
  /** The caller's company id (span attribute `kyc.company.id`). */
  readonly companyId?: string | undefined;
  /** W3C `traceparent` of the span that enqueued the event: every attempt links to it, in any process. */
  readonly traceParent?: string | undefined;
}

/** A due delivery leased to one worker until `leaseUntil`. */
export interface DeliveryClaim {
  readonly id: string;
  readonly url: string;
  readonly origin: string;
  /**
   * The Auth Key as the store keeps it: sealed, for the stores of this package (their
   * {@link DeliveryStore.openCredentials} opens it for the attempt); a store without
   * `openCredentials` hands it over in clear.
   */
  readonly authKey: string | undefined;
  /** As {@link NewDelivery.signingSecret} (one secret or several, space-separated), kept as `authKey` is. */
  readonly signingSecret: string | undefined;
  readonly body: string;
  /** Attempts recorded so far over every round. */
  readonly attempts: number;
  /** Attempts recorded so far in the current round (the schedule restarts on redelivery). */
  readonly roundAttempts: number;
  /** 1 for the first round, +1 for each redelivery. */
  readonly round: number;
  /** Leases taken on this delivery since its last recorded attempt that ended without a result. */
  readonly lostLeases: number;
  /** Fencing token: a result is recorded only while it is still the delivery's current token. */
  readonly token: number;
  /** When the delivery was due before this claim (restored by {@link DeliveryStore.release}). */
  readonly dueAt: number;
  /** When the event was enqueued (stores written before schema version 2 may omit it). */
  readonly createdAt?: number | undefined;
  readonly sessionId?: string | undefined;
  readonly companyId?: string | undefined;
  /** As stored by {@link NewDelivery.traceParent}. */
  readonly traceParent?: string | undefined;
}

/** Pending deliveries by state at one instant, for the queue gauges. */
export interface QueueStats {
  /** Due now (or whose lease ended without a result) and not claimed. */
  readonly due: number;
  /** Waiting for a retry (or a redelivery) that is not due yet. */
  readonly waitingRetry: number;
  /** Claimed by a worker whose lease has not ended. */
  readonly inFlight: number;
  /** When the longest-waiting due delivery became due; `undefined` when none is due. */
  readonly oldestDueAt: number | undefined;
}

/** One row of the attempt log. Headers arrive here already redacted. */
export interface AttemptRecord {
  /** Attempt number over every round: the Webhook-Attempt header that was sent. */
  readonly attempt: number;
  readonly round: number;
  readonly startedAt: number;
  readonly requestHeaders: Readonly<Record<string, string>>;
  readonly status: number | undefined;
  /** A transport outcome class, or `worker_lost` when repeated lost leases were counted as a failure. */
  readonly outcome: string;
  readonly dialedAddress: string | undefined;
  readonly latencyMs: number;
  readonly responseSnippet: string | undefined;
  readonly errorMessage: string | undefined;
  /**
   * Sends of this delivery before this attempt that ended without a recorded result (the process
   * died or was fenced off between sending and recording, or its lease ran out): each one may
   * have reached the endpoint, so a non-zero count explains a duplicate the customer saw.
   */
  readonly unrecordedSends: number;
}

/** What the delivery becomes once an attempt is recorded. */
export interface AttemptTransition {
  readonly state: DeliveryState;
  /** When the next attempt is due (only for `pending`). */
  readonly nextAttemptAt: number | undefined;
  readonly finishedAt: number;
}

/** A delivery as reads return it: no Auth Key, no signing secret, no body parsing. */
export interface DeliverySummary {
  readonly id: string;
  readonly url: string;
  readonly state: DeliveryState;
  readonly body: string;
  readonly hasAuthKey: boolean;
  readonly attempts: number;
  readonly roundAttempts: number;
  readonly round: number;
  readonly createdAt: number;
  /** Next attempt (or lease end while an attempt is in flight); `undefined` once finished. */
  readonly nextAttemptAt: number | undefined;
  readonly finishedAt: number | undefined;
  readonly lastOutcome: string | undefined;
  readonly lastStatus: number | undefined;
}

/** A manual redelivery, kept for the audit trail. */
export interface RedeliveryRecord {
  readonly round: number;
  readonly requestedAt: number;
}

/** A delivery with its full attempt log and redelivery history. */
export interface DeliveryRecord extends DeliverySummary {
  readonly attemptLog: readonly AttemptRecord[];
  readonly redeliveries: readonly RedeliveryRecord[];
}

/** Filter of {@link DeliveryStore.list}; results are newest first. */
export interface DeliveryFilter {
  readonly state?: DeliveryState;
  /** Exact URL of the endpoint. */
  readonly url?: string;
  /** Only deliveries created at or after this time (epoch ms). */
  readonly createdSince?: number;
  /** Only deliveries created before this time (epoch ms): pass the last `createdAt` seen to page. */
  readonly createdBefore?: number;
  /** At most this many (default 100, at most 1000). */
  readonly limit?: number;
}

/** The slow lane of a claim (see {@link ClaimRequest.slow}). */
export interface SlowLane {
  readonly origins: readonly string[];
  readonly limit: number;
}

/** Which lanes of a claim have room: what {@link DeliveryStore.nextDueAt} asks about. */
export type LaneRoom = Pick<ClaimRequest, 'limit' | 'slow'>;

/** Arguments of {@link DeliveryStore.claim}. */
export interface ClaimRequest {
  /** The engine clock's time: what is due by now is claimable. */
  readonly now: number;
  /**
   * A monotonic reading in the same units as `now` (it never steps with the wall clock): a store
   * that keeps holds in memory times them on it. Without it, `now` is used.
   */
  readonly elapsed?: number;
  /**
   * At most this many deliveries of origins outside `slow.origins`: the free slots of the engine's
   * prompt lane. Without `slow`, every origin counts against it.
   */
  readonly limit: number;
  /**
   * The engine's slow lane: origins that lately hung or answered slowly, and how many of their
   * deliveries it has room for. Their deliveries count against `slow.limit`, never `limit`, so
   * endpoints that hang share a budget of their own and cannot take the slots that others need.
   */
  readonly slow?: SlowLane;
  readonly leaseMs: number;
  /**
   * `leaseMs` in real milliseconds (the engine clock may run faster than the wall's, as a scaled
   * clock does): a store that times leases on a clock of its own uses this. Default `leaseMs`.
   */
  readonly leaseRealMs?: number;
  /** Origins already at their concurrency limit in this process: not claimed now. */
  readonly excludeOrigins: readonly string[];
  /**
   * At most this many deliveries of one origin in this claim (the per-endpoint limit), fewer
   * for an origin listed in `busyOrigins`. Without it a backlog of one endpoint would fill the
   * whole claim, and the engine would have to give most of it straight back.
   */
  readonly maxPerOrigin?: number;
  /** Origins with attempts in flight in this process, and how many: their room is `maxPerOrigin` minus that. */
  readonly busyOrigins?: readonly (readonly [origin: string, inFlight: number])[];
  /**
   * Real milliseconds a delivery may wait between its claim and its send with its lease still
   * covering a whole attempt: a store may claim beyond `limit` and hand the rest out within this
   * time (the Postgres store does, while the queue is deep). Default 0: nothing is claimed ahead.
   */
  readonly holdMs?: number;
}

/** Whether a store can record results right now, for readiness probes and the loop. */
export interface StoreHealth {
  /** `false` while writes fail (a full disk, an I/O error) or for good once the store was fenced off or broken. */
  readonly writable: boolean;
  /** Another engine owns the store now: this one claims nothing more. */
  readonly fenced: boolean;
  /** Results of finished attempts waiting for the store to accept them (held, never dropped). */
  readonly heldResults: number;
  /** What is wrong, in words (never a secret). */
  readonly problem?: string;
}

/** A claimed delivery's secrets in clear, as {@link DeliveryStore.openCredentials} gives them for one attempt. */
export interface StoredCredentials {
  readonly authKey: string | undefined;
  /** One secret or several, space-separated. */
  readonly signingSecret: string | undefined;
}

/** The outcome of {@link DeliveryStore.resealSecrets}. */
export interface ResealResult {
  /** Rows whose secrets were sealed again with the current key. */
  readonly resealed: number;
  /** The id of the key that seals now. */
  readonly sealingKeyId: string;
  /** Key ids no stored value uses any more, dropped from the store: remove them from your configuration. */
  readonly retiredKeyIds: readonly string[];
}

/** Outcome of {@link DeliveryStore.redeliver}. */
export type RedeliverResult = 'started' | 'not_found' | 'in_progress';

/** Options of {@link DeliveryStore.insert}; `transaction` is store-specific (a `pg` client for Postgres). */
export interface InsertOptions<Transaction> {
  readonly transaction?: Transaction;
}

/**
 * The storage contract. Implementations must make `claim` exclusive across processes, check
 * the fencing token in `complete` and `release`, and keep nothing in memory per waiting
 * delivery (a store may hold its claims in memory: they are bounded by the engine's concurrency).
 */
export interface DeliveryStore<Transaction = never> {
  /** Creates tables and indexes if missing. Idempotent; the engine calls it on `start()` and on first use. */
  migrate(): Promise<void>;
  /**
   * Makes this handle a writer of the queue where the store allows only certain writers (the
   * SQLite store's owner mode: the one process that owns the file). The engine calls it in
   * `start()`; writes call it themselves. Rejects with `store_locked` when another owns it.
   * Reads never need it.
   */
  acquireOwnership?(): Promise<void>;
  /**
   * Stores a new pending delivery due at `createdAt`. Resolves once durable (or once written
   * in `options.transaction`). An existing id is left untouched and `created` is `false`.
   */
  insert(delivery: NewDelivery, options?: InsertOptions<Transaction>): Promise<{ created: boolean }>;
  /**
   * Leases up to `limit` due deliveries (and up to `slow.limit` of the slow lane's origins),
   * taking them round-robin across origins, oldest due first within each, and never walking one
   * origin's backlog row by row: the lease ends at `now + leaseMs`, at
   * which point the delivery is due again. A claim of a delivery whose previous lease ended
   * without a result counts one lost lease. The lease may live in the store (many processes)
   * or in memory (one owning process): either way it outlasts no process that holds it.
   */
  claim(request: ClaimRequest): Promise<DeliveryClaim[]>;
  /** Records an attempt and the new state if `token` is still current; `false` means the lease was lost. */
  complete(
    claim: Pick<DeliveryClaim, 'id' | 'token'>,
    attempt: AttemptRecord,
    transition: AttemptTransition,
  ): Promise<boolean>;
  /** Gives a claim back without an attempt: due again at its old time, no lost lease counted. */
  release(claim: Pick<DeliveryClaim, 'id' | 'token' | 'dueAt'>): Promise<boolean>;
  /**
   * Gives back what the store claimed ahead of the engine's requests (see `ClaimRequest.holdMs`)
   * and has not handed out. The engine calls it when its loop stops. Optional.
   */
  releaseHeld?(): Promise<void>;
  /**
   * The earliest time a pending delivery (outside `excludeOrigins`) is due, or `undefined`. With
   * `lanes`, only origins whose lane has room count: origins outside `lanes.slow.origins` while
   * `lanes.limit` > 0, those inside while `lanes.slow.limit` > 0. Its cost must not grow with one
   * origin's backlog (an idle engine asks it at every pass).
   */
  nextDueAt(excludeOrigins: readonly string[], lanes?: LaneRoom): Promise<number | undefined>;
  get(id: string): Promise<DeliveryRecord | undefined>;
  list(filter?: DeliveryFilter): Promise<DeliverySummary[]>;
  /** Starts a new round of attempts now for a delivered or failed delivery. */
  redeliver(id: string, now: number): Promise<RedeliverResult>;
  /**
   * Calls `listener` when another process may have made work due (Postgres `LISTEN/NOTIFY`).
   * Optional: stores without it are polled.
   */
  subscribe?(listener: () => void): Promise<() => Promise<void>>;
  /**
   * Counts pending deliveries by state at `now`, for the `kyc.webhook.queue.depth` and
   * `kyc.webhook.oldest_due.age` gauges. Optional: without it those gauges are not reported.
   */
  queueStats?(now: number): Promise<QueueStats>;
  /**
   * Opens a claim's sealed Auth Key and signing secret for its attempt, once per attempt and only
   * when the engine's `credentials` hook did not answer for it. Throws `sealing_key_missing` or
   * `sealing_key_wrong` when a value cannot be opened (the attempt is then recorded as a
   * `credentials_error`, never sent without its key). Optional: without it a claim's `authKey`
   * and `signingSecret` are taken as they are.
   */
  openCredentials?(claim: DeliveryClaim): StoredCredentials;
  /**
   * Seals every stored secret again with the first of the store's sealing keys, then drops the
   * key ids no value uses any more (SQLite also rewrites the file, so nothing sealed with them is
   * left in it). Run it after adding a new key in front of the old one; every pending delivery
   * stays deliverable throughout. Optional.
   */
  resealSecrets?(): Promise<ResealResult>;
  /**
   * Whether the store can write, synchronously and without a store call. Optional: a store
   * without it is taken to be writable, and its failures show in the loop's log.
   */
  health?(): StoreHealth;
  close(): Promise<void>;
}

/** Largest page {@link DeliveryStore.list} returns. */
export const MAX_LIST_LIMIT = 1000;
/** Page size of {@link DeliveryStore.list} without a `limit`. */
export const DEFAULT_LIST_LIMIT = 100;

/** Clamps a caller's `limit` into 1…{@link MAX_LIST_LIMIT}. */
export function listLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_LIST_LIMIT;
  return Math.min(MAX_LIST_LIMIT, Math.max(1, Math.floor(limit)));
}
