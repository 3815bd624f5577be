import type { IdempotencyStore } from '../idempotency/store.js';
import type { Inbox, SupersededBy } from '../inbox/types.js';
import type { KycWebhookEvent } from '../parse-webhook.js';
import type { ReceiverTelemetryOptions } from '../telemetry/telemetry-options.js';
import type { AuthKeys } from '../verify-authorization.js';
import type { AnswerCode, ReceiveOutcome } from './outcome.js';

/**
 * What the handler learns about the delivery besides the event. `Tx` is the transaction type of
 * the `inbox` (e.g. a Drizzle transaction); without an inbox it is `undefined`.
 */
export interface WebhookContext<Tx = undefined> {
  /** The key this event is deduplicated on. */
  readonly idempotencyKey: string;
  /** The `Webhook-Id` header, when sent. */
  readonly webhookId: string | undefined;
  /** Aborted when the receiver gave up waiting and answered 503 (the handler may still finish). */
  readonly signal: AbortSignal;
  /** Reads a request header by its lower-case name. */
  header(name: string): string | undefined;
  /**
   * Inbox mode: the open transaction on your database. Write through it, and your writes commit
   * together with the event's key (or roll back together when you throw). `undefined` otherwise.
   */
  readonly tx: Tx;
  /**
   * Inbox mode: set when a newer result was already applied to this session (see
   * docs/idempotency.md for what "newer" means); the handler only sees it with
   * `staleResults: 'run'`. Always `undefined` without an inbox.
   */
  readonly supersededBy: SupersededBy | undefined;
}

/** Runs the customer's business logic once per event. Throwing makes the receiver answer 500 and allow a retry. */
export type WebhookHandler<Tx = undefined> = (event: KycWebhookEvent, context: WebhookContext<Tx>) => unknown;

/** Fields attached to a log line: codes, statuses, ids — never a key, a secret or a body. */
export type LogFields = Readonly<Record<string, unknown>>;

/** Where the receiver reports what it did. Every method is optional; pass `console` to log everywhere. */
export interface ReceiverLogger {
  debug?(message: string, fields?: LogFields): void;
  info?(message: string, fields?: LogFields): void;
  warn?(message: string, fields?: LogFields): void;
  error?(message: string, fields?: LogFields): void;
}

/** An audit trail to keep, as `auditTrail()` from `@kyc/webhook-receiver/audit` builds it. */
export interface AuditTrail {
  /**
   * How the receiver wires it in, once, with its logger and every configured key and secret;
   * returns its request-finished listener.
   * @internal
   */
  readonly attach: (context: { readonly logger: ReceiverLogger; readonly secrets: readonly string[] }) => unknown;
}

/** Options shared by both ways of authenticating (or not). */
export interface BaseReceiverOptions<Tx = undefined> {
  /** Your business logic, run once per event. */
  readonly onEvent: WebhookHandler<Tx>;
  /** Where processed events are remembered. Default: {@link memoryIdempotencyStore} (one process only). */
  readonly idempotencyStore?: IdempotencyStore;
  /**
   * A transactional inbox on your own database (`pgInbox(pool)` from `/inbox/pg`, `drizzleInbox`
   * …): the event's key is written in the same transaction as the handler's writes
   * (`context.tx`), and the answer is 200 only after that commit. Replaces `idempotencyStore`.
   */
  readonly inbox?: Inbox<Tx>;
  /** Largest body accepted, in bytes. Default 1 MiB; larger bodies get 413 without being read. */
  readonly maxBodyBytes?: number;
  /** Refuse (400) bodies with any issue instead of passing them on with `event.issues`. */
  readonly strict?: boolean;
  /** How long to wait for the handler before answering 503 (it keeps running). Default 25 s. */
  readonly handlerTimeoutMs?: number;
  /** How long a processed event is remembered. Default 7 days. */
  readonly idempotencyTtlMs?: number;
  /** How long a claim in progress holds before another delivery may take it over. Default 5 minutes. */
  readonly idempotencyLeaseMs?: number;
  /** Standard Webhooks secrets (`whsec_…`); when set, every delivery must carry a valid signature. */
  readonly signingSecrets?: string | readonly string[];
  /** How far a signature's timestamp may be from now. Default 5 minutes. */
  readonly signatureToleranceMs?: number;
  /** Receives one line per rejected delivery, failed handler or store problem. */
  readonly logger?: ReceiverLogger;
  /** Milliseconds since the epoch, for signature timestamps and audit entries; default `Date.now`. */
  readonly now?: () => number;
  /** Keep a tamper-evident audit trail: `auditTrail({ sink })` from `@kyc/webhook-receiver/audit` (docs/audit.md). */
  readonly audit?: AuditTrail;
  /**
   * OpenTelemetry: a `kyc.webhook.receive` SERVER span and the `kyc.webhook.received` and
   * `kyc.webhook.handler.duration` metrics per request, through `@opentelemetry/api` when it is
   * installed (an optional peer; default: the global providers). `false` turns it off.
   */
  readonly telemetry?: ReceiverTelemetryOptions | false;
  /**
   * Continue the trace of an incoming `traceparent` header (default `false`: it is only linked).
   * Turn on when the sender is yours, or you trust its trace ids. Read by the global propagator,
   * or as W3C Trace Context by the receiver itself when none is registered.
   */
  readonly trustTraceContext?: boolean;
}

/** Receive deliveries that carry `Authorization: Bearer <Auth Key>`. */
export interface AuthenticatedReceiverOptions<Tx = undefined> extends BaseReceiverOptions<Tx> {
  /** The Auth Key, or several during a rotation. Each at least 16 characters. */
  readonly authKeys: AuthKeys;
  readonly allowUnauthenticated?: boolean;
}

/**
 * Receive v1 deliveries, which carry no `Authorization` header. Confirm each event by fetching
 * its details URL with the client before acting on it (see the README).
 */
export interface UnauthenticatedReceiverOptions<Tx = undefined> extends BaseReceiverOptions<Tx> {
  readonly authKeys?: undefined;
  /** Must be `true`: an explicit opt-out of header authentication. */
  readonly allowUnauthenticated: true;
}

/** Options of {@link createWebhookReceiver}. */
export type WebhookReceiverOptions<Tx = undefined> =
  | AuthenticatedReceiverOptions<Tx>
  | UnauthenticatedReceiverOptions<Tx>;

/** A request as every adapter can describe it: the core needs nothing more. */
export interface ReceiverInput {
  readonly method: string;
  /** A header by lower-case name; `null`/`undefined` when absent. */
  header(name: string): string | null | undefined;
  /**
   * Reads the raw body, at most `maxBytes` of it. Rejects with a `WebhookError`:
   * `body_too_large` (stop reading at once), `body_already_consumed` or `body_unreadable`.
   */
  readBody(maxBytes: number): Promise<Uint8Array>;
}

/** The receiver's answer, for an adapter to write out. */
export interface ReceiverAnswer {
  /** How the request ended; not sent on the wire. */
  readonly outcome: ReceiveOutcome;
  /** Why, for an error answer: the `error.code` of its body. Unset on 200. */
  readonly code?: AnswerCode;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** A short generic JSON text. */
  readonly body: string;
}

/** A configured receiver. */
export interface WebhookReceiver {
  /** Handles a Fetch API request (Hono, Next.js, Bun, Deno, Workers). */
  handle(request: Request): Promise<Response>;
  /** Handles a request described by an adapter; `handle` and every framework adapter call this. */
  receive(input: ReceiverInput): Promise<ReceiverAnswer>;
}
