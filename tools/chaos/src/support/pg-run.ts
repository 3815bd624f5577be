import {
  createDeliveryEngine,
  type DeliveryEngine,
  type DeliveryRecord,
  type DeliveryStore,
  type WebhookEvent,
} from '@kyc/delivery-engine';
import { postgresDeliveryStore } from '@kyc/delivery-engine/postgres';
import type pg from 'pg';
import { CHAOS_KEY } from './chaos-receiver.js';
import { pause } from './pause.js';
import type { Invariants } from './scenario.js';
import { CHAOS_SEALING_KEYS } from './sealing-keys.js';
import { accountSends, countPerId } from './send-accounting.js';
import type { ChildScript } from './spawn-script.js';

/** The producer of a Postgres scenario: it enqueues only, to the chaos receiver on loopback (127.0.0.2). */
function loopbackProducer(store: DeliveryStore<unknown>): DeliveryEngine {
  return createDeliveryEngine({
    store,
    allowPrivateNetworks: ['127.0.0.0/8'],
    resolver: { resolve: async () => [{ address: '127.0.0.2', family: 4 as const }] },
  });
}

/** A scenario's event: an APPROVED result for session `id`, with the chaos Auth Key. */
export function approvedEvent(id: string, url: string): WebhookEvent & { readonly id: string } {
  return { id, url, authKey: CHAOS_KEY, body: JSON.stringify({ sessionId: id, status: 'APPROVED' }) };
}

/** Events enqueued together: a producer answering several requests at once. */
const BATCH = 8;

/**
 * Enqueues `count` events from one producer, `BATCH` at a time with `pauseMs` between batches
 * (so workers are claiming while events arrive), and returns the ids whose enqueue resolved.
 */
async function enqueueInBatches(
  producer: Pick<DeliveryEngine, 'enqueue'>,
  count: number,
  event: (n: number) => WebhookEvent & { readonly id: string },
  pauseMs: number,
): Promise<string[]> {
  const acked: string[] = [];
  for (let n = 0; n < count; n += BATCH) {
    await Promise.all(
      Array.from({ length: Math.min(BATCH, count - n) }, async (_, k) => {
        const next = event(n + k);
        await producer.enqueue(next);
        acked.push(next.id);
      }),
    );
    await pause(pauseMs);
  }
  return acked;
}

/** Waits (bounded: `polls` × 250 ms) until the Postgres queue has no pending delivery. */
async function waitForDrain(pool: pg.Pool, polls: number): Promise<void> {
  for (let i = 0; i < polls; i++) {
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM deliveries WHERE state = 'pending'");
    if (rows[0]?.n === 0) return;
    await pause(250);
  }
}

/**
 * After the drain: every worker still alive, and every acknowledged event read back from the
 * store (an event missing is lost work). Returns the records found.
 */
async function readBack(
  store: { get(id: string): Promise<DeliveryRecord | undefined> },
  acked: readonly string[],
  workers: readonly ChildScript[],
  invariants: Invariants,
): Promise<DeliveryRecord[]> {
  for (const worker of workers) {
    invariants.check(worker.child.exitCode === null, 'a worker died on its own', () => worker.stderr().slice(-400));
  }
  const records: DeliveryRecord[] = [];
  for (const id of acked) {
    const record = await store.get(id);
    invariants.check(record !== undefined, 'lost: enqueue resolved but the event is not in the store', () => id);
    if (record !== undefined) records.push(record);
  }
  return records;
}

/** Issue 32's bar on every send the receiver saw: none twice, and any extra explained by the log. */
export function checkSentOnce(
  records: readonly DeliveryRecord[],
  receipts: readonly { readonly id: string }[],
  invariants: Invariants,
): { sentMoreThanOnce: string[]; explained: number } {
  const sends = accountSends(records, countPerId(receipts));
  invariants.check(sends.sentMoreThanOnce.length === 0, 'sent more than once', () =>
    sends.sentMoreThanOnce.slice(0, 5).join(', '),
  );
  invariants.check(
    sends.explained === sends.sentMoreThanOnce.length,
    'a send more than once the attempt log does not explain',
  );
  return sends;
}

/** What a Postgres scenario's producer phase sets. */
export interface ProduceOptions {
  readonly pool: pg.Pool;
  readonly events: number;
  readonly event: (n: number) => WebhookEvent & { readonly id: string };
  /** Between batches of enqueues. */
  readonly pauseMs: number;
  /** How long to wait for the drain, in polls of 250 ms. */
  readonly drainPolls: number;
  readonly workers: readonly ChildScript[];
  readonly invariants: Invariants;
}

/**
 * The frame every Postgres scenario shares: a producer enqueues the events while the scenario's
 * workers deliver them, the queue drains, and every acknowledged event is read back.
 */
export async function produceAndDrain(
  options: ProduceOptions,
): Promise<{ acked: string[]; records: DeliveryRecord[]; drainedMs: number }> {
  const store = postgresDeliveryStore({ pool: options.pool, sealingKeys: CHAOS_SEALING_KEYS });
  const started = Date.now();
  const acked = await enqueueInBatches(loopbackProducer(store), options.events, options.event, options.pauseMs);
  await waitForDrain(options.pool, options.drainPolls);
  const drainedMs = Date.now() - started;
  const records = await readBack(store, acked, options.workers, options.invariants);
  return { acked, records, drainedMs };
}
