import type { HEADERS } from '@kyc/contracts/webhook-reader';
import type { InboxOutcome } from '../inbox/types.js';
import type { AnswerCode, ReceiveOutcome } from '../receiver/outcome.js';

/** The Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`) exactly as received (`null` when absent). */
export type AuditSignatureHeaders = {
  readonly [name in (typeof HEADERS)['webhookId' | 'webhookTimestamp' | 'webhookSignature']]: string | null;
};

/**
 * What the receiver records about one request, before it is chained. Every field is present
 * (`null` when unknown), so that entries line up in a table. No field ever holds an Auth Key,
 * a signing secret or the `Authorization` header; the raw body only with `includeBody`.
 */
export interface AuditRecord {
  /** When the request reached the receiver (ISO 8601, UTC, milliseconds). */
  readonly receivedAt: string;
  /** How the request ended (see `ReceiveOutcome`). */
  readonly outcome: ReceiveOutcome;
  /** The answer's `error.code`; `null` for a 200. */
  readonly code: AnswerCode | null;
  /** The HTTP status answered. */
  readonly httpStatus: number;
  /** The `Webhook-Id` header. */
  readonly webhookId: string | null;
  /** The `Webhook-Attempt` header (1, 2, 3, 4 …): joins this entry to the sender's attempt log. */
  readonly webhookAttempt: string | null;
  /** The key the event was deduplicated on, when the body parsed. */
  readonly idempotencyKey: string | null;
  /** The session id, when the body parsed. */
  readonly sessionId: string | null;
  /** The verification status (`APPROVED` …), when the body carried one. */
  readonly kycStatus: string | null;
  /** The event's own `timestamp`, exactly as sent, when the body carried one. */
  readonly eventTimestamp: string | null;
  /** Lower-case hex SHA-256 of the raw body bytes, when they were read. */
  readonly bodySha256: string | null;
  /** Length of the raw body in bytes, when it was read. */
  readonly bodyLength: number | null;
  /** The signature headers exactly as received. */
  readonly signatureHeaders: AuditSignatureHeaders;
  /** Whether the Standard Webhooks signature verified; `null` when it was not checked. */
  readonly signatureVerified: boolean | null;
  /** Position in `signingSecrets` of the secret that verified. */
  readonly signingSecretIndex: number | null;
  /** The label given for that secret (`auditTrail({ signingSecretLabels })`). */
  readonly signingSecretLabel: string | null;
  /** Position in `authKeys` of the key that matched; `null` when none did or none is configured. */
  readonly authKeyIndex: number | null;
  /** The label given for that key (`auditTrail({ authKeyLabels })`). */
  readonly authKeyLabel: string | null;
  /** Milliseconds from the request's arrival to the answer (whole milliseconds). */
  readonly durationMs: number;
  /** Milliseconds the handler ran before the answer, when it ran. */
  readonly handlerMs: number | null;
  /**
   * Inbox mode only: what became of the effect — `committed` (the handler's writes and the key
   * committed before the 200), `rolled_back` (handler failed or outlived the deadline: nothing
   * kept), `duplicate`, `stale_skipped`, `lock_timeout` or `unavailable`. Absent otherwise.
   */
  readonly inbox?: InboxOutcome;
  /** The raw body as UTF-8 text, only with `auditTrail({ includeBody: true })` (personal data). */
  readonly body?: string;
  /** The raw body in base64, with `includeBody`, when it is not valid UTF-8. */
  readonly bodyBase64?: string;
}

/** An {@link AuditRecord} linked into its log's hash chain. */
export interface AuditEntry extends AuditRecord {
  /** Version of this entry format. */
  readonly v: 1;
  /** Position in the log: 1, 2, 3 … without gaps. */
  readonly seq: number;
  /** `hash` of the entry before (64 zeros for the first entry of a log). */
  readonly prevHash: string;
  /** Lower-case hex SHA-256 of the entry's canonical JSON without `hash` (see `hashAuditEntry`). */
  readonly hash: string;
}

/** Where a log's chain stands: the last entry's position and hash. */
export interface AuditHead {
  readonly seq: number;
  readonly hash: string;
}

/**
 * Lower-case hex SHA-256 of bytes. Web Crypto's is the default everywhere; on Node a sink
 * passes `node:crypto`'s, which is synchronous and many times cheaper per call.
 */
export type Sha256 = (bytes: Uint8Array) => string | Promise<string>;

/** Options of {@link AuditSink.append}. */
export interface AuditAppendOptions {
  /**
   * Aborted when the receiver stops waiting (`auditTrail({ timeoutMs })`). A sink drops a record that is
   * still queued then, so that no entry records an answer that was replaced by the 503; one
   * already being written may still land (docs/audit.md).
   */
  readonly signal?: AbortSignal;
}

/**
 * Where audit entries go. `append` links the record to the chain and stores it; it resolves
 * with the stored entry once it is as durable as the sink promises, and rejects when the record
 * was not stored (the chain then does not advance). Concurrent calls are allowed: the sink orders them.
 */
export interface AuditSink {
  append(record: AuditRecord, options?: AuditAppendOptions): Promise<AuditEntry>;
  /** Flushes and releases what the sink holds (file handles); optional. */
  close?(): Promise<void>;
  /** The SHA-256 the receiver hashes bodies with for this sink (default Web Crypto); the same result either way. */
  readonly sha256?: Sha256;
}

/** What the receiver answers when an entry cannot be written in time. */
export type AuditFailurePolicy = 'fail-closed' | 'fail-open';

/** Options of `auditTrail`, whose result is the `audit` option of `createWebhookReceiver`. */
export interface AuditOptions {
  /** Where entries go: `jsonlAuditSink` (Node), `postgresAuditSink`, or `callbackAuditSink`. */
  readonly sink: AuditSink;
  /**
   * `fail-closed` (default): a 200 whose entry could not be written becomes 503 + `Retry-After`,
   * so the service delivers again and no accepted delivery is missing from the trail. Other
   * answers are failures the service retries anyway, and stay as they are.
   * `fail-open`: the answer stands and the entry (without body) goes to the logger's `error`.
   */
  readonly onFailure?: AuditFailurePolicy;
  /** How long to wait for the sink before treating the write as failed. Default 5 000 ms. */
  readonly timeoutMs?: number;
  /** Keep the raw body in each entry (it carries personal data: see docs/audit.md on retention). Default false. */
  readonly includeBody?: boolean;
  /** Names for the configured `authKeys`, by position (e.g. `['2026-q4', '2027-q1']`); never the keys. */
  readonly authKeyLabels?: readonly string[];
  /** Names for the configured `signingSecrets`, by position; never the secrets. */
  readonly signingSecretLabels?: readonly string[];
}
