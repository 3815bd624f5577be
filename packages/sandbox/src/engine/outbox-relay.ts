import { type DeliveryEngine, DeliveryEngineError, parseTraceparent } from '@kyc/delivery-engine';
import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import type { SandboxLogger } from '../sandbox-options.js';
import type { SandboxStore } from '../store/sandbox-store.js';

/** Engine errors that will not go away by retrying the same event. */
const PERMANENT = new Set(['invalid_event', 'invalid_url', 'invalid_auth_key', 'event_id_conflict']);

/**
 * Hands webhook events from the sandbox's outbox table to the engine. The outbox row is
 * written in the same SQLite transaction that finishes the session; this relay enqueues it
 * by its event id, which the engine treats idempotently, so a crash between the enqueue and
 * `markRelayed` only repeats a no-op. Runs at start, after each finish and on a timer, one
 * pass at a time.
 */
export function createOutboxRelay(
  store: SandboxStore,
  engine: DeliveryEngine,
  now: () => number,
  logger?: SandboxLogger,
) {
  let running: Promise<void> | undefined;
  let again = false;

  async function pass(): Promise<void> {
    // Bounded: at most 100 rows per batch, and a batch that makes no progress ends the pass.
    for (let batch = 0; batch < 1000; batch++) {
      const rows = store.outbox.unrelayed(100);
      if (rows.length === 0) return;
      let progressed = false;
      for (const row of rows) {
        if (row.url === undefined) {
          store.outbox.markRelayed(row.eventId, now(), 'no webhook URL was configured when the session finished');
          progressed = true;
          continue;
        }
        try {
          const url = row.url;
          // Enqueued in the finishing request's trace, whichever pass (or restart) relays it.
          const finishing = parseTraceparent(row.traceParent);
          const parent = finishing === undefined ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, finishing);
          await context.with(parent, () =>
            engine.enqueue({
              id: row.eventId,
              url,
              body: row.body,
              // No Auth Key or secret: the engine's credentials hook gives the company's at send time.
              companyId: String(row.companyId),
            }),
          );
          store.outbox.markRelayed(row.eventId, now(), undefined);
          progressed = true;
        } catch (error) {
          if (error instanceof DeliveryEngineError && PERMANENT.has(error.code)) {
            store.outbox.markRelayed(row.eventId, now(), error.message);
            progressed = true;
          } else {
            logger?.warn?.(`outbox relay: event ${row.eventId} stays queued: ${(error as Error).message}`);
          }
        }
      }
      if (!progressed) return;
    }
  }

  return {
    /** Runs a relay pass (or schedules one more after the pass in progress); resolves when done. */
    async relay(): Promise<void> {
      if (running) {
        again = true;
        return running;
      }
      running = (async () => {
        do {
          again = false;
          try {
            await pass();
          } catch (error) {
            // Rows stay unrelayed and are picked up by the next pass (timer, next finish, restart).
            logger?.warn?.(`outbox relay pass failed: ${(error as Error).message}`);
          }
        } while (again);
      })().finally(() => {
        running = undefined;
      });
      return running;
    },
  };
}

export type OutboxRelay = ReturnType<typeof createOutboxRelay>;
