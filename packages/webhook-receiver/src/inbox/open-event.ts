import type { KycWebhookEvent } from '../parse-webhook.js';
import { WebhookError } from '../webhook-error.js';
import type { PreparedInbox } from './prepared-inbox.js';
import { setOnConnection } from './set-on-connection.js';
import type { InboxOpening, InboxQueryResult, InboxSettings, InboxTransaction, SupersededBy } from './types.js';

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

/** The session's newest result, read under its row lock, as what supersedes this event. */
async function supersededOf<Tx>(
  inbox: PreparedInbox<Tx>,
  tx: InboxTransaction<Tx>,
  sessionId: string,
): Promise<OpenedEvent> {
  const row = (await tx.query(inbox.statements.lockSession, [sessionId])).rows[0];
  if (row === undefined) return NEWEST;
  const supersededBy: SupersededBy = Object.freeze({
    status: typeof row.status === 'string' ? row.status : null,
    eventTime: new Date(Number(row.event_at_ms)),
  });
  return { kind: 'new', supersededBy };
}

/**
 * MySQL/MariaDB, a statement at a time: the session's first result is inserted; a later one
 * replaces it only when newer (the UPDATE's own WHERE); otherwise the newer one is read. An event
 * without a time never counts as newer: it runs only while the session has no result yet, and
 * is not recorded as its newest.
 */
async function orderSession<Tx>(
  inbox: PreparedInbox<Tx>,
  tx: InboxTransaction<Tx>,
  event: KycWebhookEvent,
  status: string | null,
  time: number | undefined,
  at: number,
): Promise<OpenedEvent> {
  const { statements } = inbox;
  if (time !== undefined) {
    const first = await tx.query(statements.insertSession, [event.sessionId, status, time, at]);
    if (first.affected === 1) return NEWEST;
    const newer = await tx.query(statements.updateSession, [status, time, at, event.sessionId, time]);
    if (newer.affected === 1) return NEWEST;
  }
  return await supersededOf(inbox, tx, event.sessionId);
}

/** The Postgres opening's answer (see `openPostgres` in statements.ts). */
async function afterOpening<Tx>(
  inbox: PreparedInbox<Tx>,
  tx: InboxTransaction<Tx>,
  event: KycWebhookEvent,
  result: InboxQueryResult,
): Promise<OpenedEvent> {
  const row = result.rows[0];
  // A SELECT without FROM always answers one row; without it, nothing can be said.
  if (row === undefined) throw new Error('inbox: the opening statement answered no row');
  if (Number(row.inserted) === 0) return DUPLICATE;
  if (Number(row.applied) === 1) return NEWEST;
  return await supersededOf(inbox, tx, event.sessionId);
}

/**
 * The inbox's part of a delivery, in the transaction the handler will join: bound the lock
 * waits (on MySQL a session setting, sent only when the pooled connection lacks it), insert the
 * event's key (a concurrent delivery of the same event waits here on the key until the first
 * commits — then it finds the key — or rolls back), then order the result within its session,
 * the session row locked until the transaction ends so two results of one session are ordered
 * one after the other. On Postgres all of it is one statement (`open`).
 */
async function openEvent<Tx>(
  inbox: PreparedInbox<Tx>,
  tx: InboxTransaction<Tx>,
  event: KycWebhookEvent,
  at: number,
): Promise<OpenedEvent> {
  const { statements, settings } = inbox;
  if (statements.open !== undefined)
    return await afterOpening(inbox, tx, event, await tx.query(statements.open, openParams(inbox, event, at)));
  const [timeoutSql, timeoutParams] = statements.lockTimeout(settings.lockTimeoutMs);
  await setOnConnection(tx, timeoutSql, timeoutParams);
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
  return await orderSession(inbox, tx, event, status, time, at);
}

/** The parameters of Postgres's `open`, in its order (statements.ts). */
function openParams(inbox: PreparedInbox<unknown>, event: KycWebhookEvent, at: number): unknown[] {
  const time = eventTimeOf(event) ?? null;
  return [`${inbox.settings.lockTimeoutMs}ms`, event.idempotencyKey, event.sessionId, event.status ?? null, time, at];
}

/**
 * A delivery's transaction, begun, and what the inbox found in it; or where it failed: `begin`
 * (no transaction) or `record` (the inbox's statements; `tx` is then still open, to roll back).
 */
export type BegunEvent<Tx> =
  | { readonly ok: true; readonly tx: InboxTransaction<Tx>; readonly opened: OpenedEvent }
  | {
      readonly ok: false;
      readonly stage: 'begin' | 'record';
      readonly error: unknown;
      readonly tx?: InboxTransaction<Tx>;
    };

/**
 * Begins the delivery's transaction and opens the event in it. On Postgres with an adapter that
 * has `beginWith` (pg), BEGIN and the opening statement share one round trip.
 */
export async function beginEvent<Tx>(
  inbox: PreparedInbox<Tx>,
  event: KycWebhookEvent,
  at: number,
): Promise<BegunEvent<Tx>> {
  const { database, statements } = inbox;
  if (statements.open !== undefined && database.beginWith !== undefined) {
    let opening: InboxOpening<Tx>;
    try {
      opening = await database.beginWith(statements.open, openParams(inbox, event, at));
    } catch (error) {
      // The adapter has ended the transaction already.
      return { ok: false, stage: 'record', error };
    }
    const tx = opening.transaction;
    try {
      return { ok: true, tx, opened: await afterOpening(inbox, tx, event, opening.result) };
    } catch (error) {
      return { ok: false, stage: 'record', error, tx };
    }
  }
  let tx: InboxTransaction<Tx>;
  try {
    tx = await database.begin();
  } catch (error) {
    return { ok: false, stage: 'begin', error };
  }
  try {
    return { ok: true, tx, opened: await openEvent(inbox, tx, event, at) };
  } catch (error) {
    return { ok: false, stage: 'record', error, tx };
  }
}
