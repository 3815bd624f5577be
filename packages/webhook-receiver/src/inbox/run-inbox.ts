import type { KycWebhookEvent } from '../parse-webhook.js';
import { acceptedAnswer, DEFAULT_RETRY_AFTER_SECONDS, errorAnswer, staleAnswer } from '../receiver/answers.js';
import { errorFields } from '../receiver/error-fields.js';
import { HandlerContext } from '../receiver/handler-context.js';
import { isThenable } from '../receiver/is-thenable.js';
import type { RequestTrace } from '../receiver/request-finished.js';
import type { ResolvedOptions } from '../receiver/resolve-options.js';
import type { ReceiverAnswer, ReceiverInput, ReceiverLogger } from '../receiver/types.js';
import { classifyDatabaseError } from './database-errors.js';
import { beginEvent, missingTable } from './open-event.js';
import type { PreparedInbox } from './prepared-inbox.js';
import { isRolledBack } from './rolled-back.js';
import type { InboxTransaction, SupersededBy } from './types.js';

type Fields = Record<string, unknown>;

function fieldsOf(event: KycWebhookEvent): Fields {
  return { idempotencyKey: event.idempotencyKey, sessionId: event.sessionId };
}

async function rollbackQuietly(tx: InboxTransaction<unknown>, logger: ReceiverLogger, fields: Fields): Promise<void> {
  try {
    await tx.rollback();
  } catch (error) {
    logger.error?.('inbox: rollback failed (the database ends the transaction with its connection)', {
      ...fields,
      ...errorFields(error),
    });
  }
}

/** The database failed before or after the handler: 503, so the sender retries. */
function unavailable(options: ResolvedOptions, trace: RequestTrace, what: string, error: unknown, fields: Fields) {
  trace.inbox = 'unavailable';
  options.logger.error?.(`inbox: ${what} failed; answered 503`, { ...fields, ...errorFields(error) });
  return errorAnswer(503, 'store_unavailable', DEFAULT_RETRY_AFTER_SECONDS);
}

/** The key or the session is held by another delivery's transaction past the lock timeout: 409. */
function refusedOpen(
  options: ResolvedOptions,
  inbox: PreparedInbox<unknown>,
  trace: RequestTrace,
  error: unknown,
  fields: Fields,
) {
  const kind = classifyDatabaseError(error);
  if (kind === 'lock_timeout' || kind === 'deadlock') {
    trace.inbox = 'lock_timeout';
    options.logger.info?.('webhook in progress in another transaction; answered 409', fields);
    return errorAnswer(409, 'in_progress', DEFAULT_RETRY_AFTER_SECONDS);
  }
  const reason = kind === 'missing_table' ? missingTable(inbox.settings, error) : error;
  return unavailable(options, trace, 'recording the event', reason, fields);
}

/** The handler succeeded: commit its writes with the key, and answer 200 only once that is done. */
async function commit(
  options: ResolvedOptions,
  inbox: PreparedInbox<unknown>,
  tx: InboxTransaction<unknown>,
  event: KycWebhookEvent,
  trace: RequestTrace,
  fields: Fields,
): Promise<ReceiverAnswer> {
  if (tx.commitChecked !== true) {
    let found: boolean;
    try {
      found = (await tx.query(inbox.statements.findKey, [event.idempotencyKey])).rows.length === 1;
    } catch (error) {
      return await rolledBack(options, tx, trace, error, fields);
    }
    if (!found) {
      const lost = new Error('the transaction was rolled back under the handler (it caught a deadlock?)');
      return await rolledBack(options, tx, trace, lost, fields);
    }
  }
  try {
    await tx.commit();
  } catch (error) {
    if (isRolledBack(error)) {
      trace.inbox = 'rolled_back';
      options.logger.error?.('webhook handler ended but its transaction did not commit', {
        ...fields,
        ...errorFields(error),
      });
      return errorAnswer(500, 'handler_failed');
    }
    // Whether a failed COMMIT kept anything is unknown: never 200. A retry finds the key if it did.
    return unavailable(options, trace, 'commit', error, fields);
  }
  trace.inbox = 'committed';
  options.logger.info?.('webhook processed; its effect committed', fields);
  return acceptedAnswer(false);
}

/** The handler threw: its writes and the key roll back together, so a retry starts clean. */
async function rolledBack(
  options: ResolvedOptions,
  tx: InboxTransaction<unknown>,
  trace: RequestTrace,
  error: unknown,
  fields: Fields,
): Promise<ReceiverAnswer> {
  trace.inbox = 'rolled_back';
  options.logger.error?.('webhook handler failed; its transaction rolled back', { ...fields, ...errorFields(error) });
  await rollbackQuietly(tx, options.logger, fields);
  return errorAnswer(500, 'handler_failed');
}

/**
 * Runs the handler inside the open transaction, bounded by `handlerTimeoutMs`. Whichever ends
 * first decides, synchronously, so a commit can never begin after the 503: at the deadline the
 * transaction is abandoned (the connection destroyed) when the adapter can, else rolled back
 * as soon as the handler settles — never committed.
 */
function runHandler(
  options: ResolvedOptions,
  inbox: PreparedInbox<unknown>,
  event: KycWebhookEvent,
  tx: InboxTransaction<unknown>,
  supersededBy: SupersededBy | undefined,
  input: ReceiverInput,
  trace: RequestTrace,
): Promise<ReceiverAnswer> {
  const fields = fieldsOf(event);
  const context = new HandlerContext(event.idempotencyKey, event.webhookId, input, tx.tx, supersededBy);
  const started = performance.now();
  const ended = () => {
    trace.handlerMs ??= performance.now() - started;
  };
  let result: unknown;
  try {
    result = options.onEvent(event, context);
  } catch (error) {
    ended();
    return rolledBack(options, tx, trace, error, fields);
  }
  if (!isThenable(result)) {
    ended();
    return commit(options, inbox, tx, event, trace, fields);
  }
  const { logger } = options;
  return new Promise<ReceiverAnswer>((resolve) => {
    let decided = false;
    let abandoned = false;
    const timer = setTimeout(() => {
      if (decided) return;
      decided = true;
      ended();
      trace.inbox = 'rolled_back';
      logger.warn?.('webhook handler still running at the deadline; answered 503, its transaction will not commit', {
        ...fields,
        handlerTimeoutMs: options.handlerTimeoutMs,
      });
      HandlerContext.abort(context, new Error('The receiver answered 503; this transaction will be rolled back.'));
      if (tx.abandon !== undefined) {
        abandoned = true;
        try {
          tx.abandon();
        } catch (error) {
          logger.error?.('inbox: abandoning the transaction failed', { ...fields, ...errorFields(error) });
        }
      }
      resolve(errorAnswer(503, 'handler_timeout', DEFAULT_RETRY_AFTER_SECONDS));
    }, options.handlerTimeoutMs);
    const late = () => (abandoned ? undefined : rollbackQuietly(tx, logger, fields));
    Promise.resolve(result).then(
      () => {
        if (decided) return late();
        decided = true;
        clearTimeout(timer);
        ended();
        resolve(commit(options, inbox, tx, event, trace, fields));
      },
      (error: unknown) => {
        if (decided) return late();
        decided = true;
        clearTimeout(timer);
        ended();
        resolve(rolledBack(options, tx, trace, error, fields));
      },
    );
  });
}

/**
 * Inbox mode: one transaction on the customer's database holds the event's key, the session's
 * newest result and the handler's writes, and the answer follows its commit — 200 after the
 * commit, 200 for a key already committed (nothing run), 200 for a stale result (recorded, not
 * run, unless `staleResults: 'run'`), 409 past the lock timeout, 500 rolled back, 503 at the
 * deadline or when the database fails.
 */
export async function runInbox(
  options: ResolvedOptions,
  inbox: PreparedInbox<unknown>,
  event: KycWebhookEvent,
  input: ReceiverInput,
  trace: RequestTrace,
): Promise<ReceiverAnswer> {
  const fields = fieldsOf(event);
  let begun = await beginEvent(inbox, event, options.now());
  if (!begun.ok && begun.stage === 'record' && classifyDatabaseError(begun.error) === 'deadlock') {
    // InnoDB, when the holder of the event's key rolls back while two or more copies wait on it:
    // each waiter holds a shared lock on the freed key and wants it exclusive, so one is made a
    // deadlock victim (1213) and its transaction rolled back. Once more, it waits on the key like
    // any copy: it runs when the other copy rolls back, finds the key when that one commits.
    if (begun.tx !== undefined) await rollbackQuietly(begun.tx, options.logger, fields);
    options.logger.info?.('inbox: deadlock on the event key (another copy was waiting too); trying once more', fields);
    begun = await beginEvent(inbox, event, options.now());
  }
  if (!begun.ok) {
    if (begun.stage === 'begin') return unavailable(options, trace, 'begin', begun.error, fields);
    if (begun.tx !== undefined) await rollbackQuietly(begun.tx, options.logger, fields);
    return refusedOpen(options, inbox, trace, begun.error, fields);
  }
  const { tx, opened } = begun;
  if (opened.kind === 'duplicate') {
    await rollbackQuietly(tx, options.logger, fields);
    trace.inbox = 'duplicate';
    options.logger.info?.('webhook already committed; handler not run', fields);
    return acceptedAnswer(true);
  }
  const { supersededBy } = opened;
  if (supersededBy !== undefined && inbox.settings.staleResults === 'skip') {
    // The key is kept, so a redelivery of this stale result is a plain duplicate.
    try {
      await tx.commit();
    } catch (error) {
      return unavailable(options, trace, 'commit', error, fields);
    }
    trace.inbox = 'stale_skipped';
    options.logger.info?.('webhook older than the result applied to its session; handler not run', {
      ...fields,
      supersededBy: supersededBy.status,
    });
    return staleAnswer();
  }
  return await runHandler(options, inbox, event, tx, supersededBy, input, trace);
}
