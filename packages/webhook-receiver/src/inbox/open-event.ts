import type { KycWebhookEvent } from '../parse-webhook.js';
import { WebhookError } from '../webhook-error.js';
import type { PreparedInbox } from './define-inbox.js';
import type { InboxSettings, InboxTransaction, SupersededBy } from './types.js';

/** What the inbox found for a delivery, inside its open transaction. */
export type OpenedEvent =
  | { readonly kind: 'duplicate' }
  | { readonly kind: 'new'; readonly supersededBy: SupersededBy | undefined };

const DUPLICATE: OpenedEvent = Object.freeze({ kind: 'duplicate' });
const NEWEST: OpenedEvent = Object.freeze({ kind: 'new', supersededBy: undefined });

/**
 * The time a result is ordered by (docs/idempotency.md, "Order per session"): the status
 * group's `timestamp` when the body has one (status and combined shapes), else the v1 group's
 * `endedAt`. `undefined` when the body carries neither as a valid time.
 */
export function eventTimeOf(event: KycWebhookEvent): number | undefined {
  const time = event.timestamp ?? event.endedAt;
  const ms = time?.getTime();
  return ms === undefined || Number.isNaN(ms) ? undefined : ms;
}

/** The typed error for a missing table, naming the table and the fix (never a value). */
export function missingTable(settings: InboxSettings, cause: unknown): WebhookError {
  return new WebhookError(
    'inbox_table_missing',
    `the inbox table "${settings.tableName}" (or "${settings.tableName}_sessions") is missing: run migrateInbox(inbox) or apply sql/inbox.*.sql`,
    { cause },
  );
}

/**
 * Records the session's newest result, or says which newer one supersedes this event. The
 * session row is locked until the transaction ends, so two results of one session are ordered
 * one after the other. An event without a time never counts as newer: it runs only while the
 * session has no result yet, and is not recorded as its newest.
 */
async function orderSession<Tx>(
  inbox: PreparedInbox<Tx>,
  tx: InboxTransaction<Tx>,
  event: KycWebhookEvent,
  status: string | null,
  time: number | undefined,
  at: number,
): Promise<SupersededBy | undefined> {
  const { statements } = inbox;
  if (time !== undefined) {
    const first = await tx.query(statements.insertSession, [event.sessionId, status, time, at]);
    if (first.affected === 1) return undefined;
  }
  const row = (await tx.query(statements.lockSession, [event.sessionId])).rows[0];
  if (row === undefined) return undefined;
  const appliedAt = Number(row.event_at_ms);
  if (time !== undefined && time > appliedAt) {
    await tx.query(statements.updateSession, [status, time, at, event.sessionId]);
    return undefined;
  }
  return Object.freeze({
    status: typeof row.status === 'string' ? row.status : null,
    eventTime: new Date(appliedAt),
  });
}

/**
 * The inbox's part of a delivery, in the transaction the handler will join: bound the lock
 * waits, insert the event's key (a concurrent delivery of the same event waits here on the
 * key until the first commits — then it finds the key — or rolls back), then order the result
 * within its session.
 */
export async function openEvent<Tx>(
  inbox: PreparedInbox<Tx>,
  tx: InboxTransaction<Tx>,
  event: KycWebhookEvent,
  at: number,
): Promise<OpenedEvent> {
  const { statements, settings } = inbox;
  const [timeoutSql, timeoutParams] = statements.lockTimeout(settings.lockTimeoutMs);
  await tx.query(timeoutSql, timeoutParams);
  const status = event.status ?? null;
  const time = eventTimeOf(event);
  const inserted = await tx.query(statements.insertKey, [
    event.idempotencyKey,
    event.sessionId,
    status,
    time ?? null,
    at,
  ]);
  if (inserted.affected === 0) return DUPLICATE;
  const supersededBy = await orderSession(inbox, tx, event, status, time, at);
  return supersededBy === undefined ? NEWEST : { kind: 'new', supersededBy };
}
