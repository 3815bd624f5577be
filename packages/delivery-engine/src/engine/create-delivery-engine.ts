import { setMaxListeners } from 'node:events';
import { DeliveryEngineError } from '../delivery-engine-error.js';
import { createEngineTelemetry, type EngineTelemetry, NOOP_TELEMETRY } from '../telemetry/engine-telemetry.js';
import { loadOpenTelemetryApi } from '../telemetry/load-api.js';
import { createAttemptSlots } from './attempt-slots.js';
import { checkFilter, checkGrace, checkId, showId } from './check-input.js';
import { claimRequest } from './claim-request.js';
import { type Clock, systemClock } from './clock.js';
import type { DeliveryEngine } from './delivery-engine.js';
import { observeGauges } from './engine-gauges.js';
import { type DeliveryEngineOptions, resolveOptions } from './options.js';
import { type AttemptContext, describe, runAttempt } from './run-attempt.js';
import { createSender } from './sender.js';
import { storeEvent } from './store-event.js';
import { createStoreGate, settledUnlessHeld } from './store-gate.js';
import { createUrlCheck } from './url-check.js';
import { createWakeup } from './wakeup.js';

/** Why an idle sleep ends early: the loop has work again, not an error. */
const SLEEP_OVER = Symbol('sleep over');

/**
 * Creates the engine that stores, sends, retries and logs webhooks. Nothing is kept in memory
 * per waiting delivery: the loop asks the store for the next due time and sleeps once until
 * then, or until `enqueue`, `redeliver` or a store notification wakes it.
 *
 * @example
 * ```ts
 * const engine = createDeliveryEngine({ store: sqliteDeliveryStore({ path: 'webhooks.db' }) });
 * await engine.start();
 * await engine.enqueue({ url: 'https://company.example/kyc', authKey, body: webhookBody });
 * ```
 */
export function createDeliveryEngine<Transaction = never>(
  options: DeliveryEngineOptions<Transaction>,
): DeliveryEngine<Transaction> {
  const resolved = resolveOptions(options);
  const store = options.store;
  const clock: Clock = options.clock ?? systemClock;
  const logger = options.logger;
  const wakeup = createWakeup();
  const slots = createAttemptSlots({
    concurrency: resolved.concurrency,
    slowConcurrency: resolved.slowConcurrency,
    perEndpoint: resolved.perEndpointConcurrency,
    slowAfterMs: resolved.slowAfterMs,
    onRoom: () => wakeup.wake(),
  });
  const sender = createSender(options, resolved.deadlineMs);
  const checkUrl = createUrlCheck(options);
  const gate = createStoreGate(store, logger);
  let telemetry: EngineTelemetry = NOOP_TELEMETRY;
  // The API is an optional peer, loaded once; until it has answered, enqueue and start wait.
  const telemetryReady: Promise<void> =
    options.telemetry === false
      ? Promise.resolve()
      : loadOpenTelemetryApi().then((api) => {
          if (api !== undefined) telemetry = createEngineTelemetry(api, options.telemetry || undefined);
        });
  let unobserve: (() => void) | undefined;
  /** Every attempt not yet finished, recording included: what `stop()` waits for. */
  const unfinished = new Set<Promise<void>>();
  let abort = new AbortController();
  let running = false;
  let loop: Promise<void> | undefined;
  let unsubscribe: (() => Promise<void>) | undefined;
  let migrated: Promise<void> | undefined;
  let starting: Promise<void> | undefined;
  let stopping: Promise<void> | undefined;
  /** `performance.now()` when the loop's current pass began; undefined while it waits. */
  let passStartedAt: number | undefined;

  const ready = () => {
    migrated ??= store.migrate().catch((error: unknown) => {
      migrated = undefined;
      throw error;
    });
    return migrated;
  };

  const context = (): AttemptContext => ({
    store: store as AttemptContext['store'],
    clock,
    send: sender.send,
    options: resolved,
    signingSecret: options.signing?.secret,
    credentials: options.credentials,
    onAttempt: options.onAttempt,
    logger,
    abort: abort.signal,
    telemetry,
  });

  /** Claims as much due work as the lanes have free slots; `true` if it may be worth claiming again at once. */
  async function fill(): Promise<boolean> {
    const room = slots.room();
    if (room === undefined) return false;
    const claims = await store.claim(claimRequest(clock, resolved, room));
    const ctx = context();
    for (const claim of claims) {
      const slot = slots.acquire(claim.origin);
      if (slot === undefined) {
        // A store that ignores the lanes or `maxPerOrigin` may return more than fits: give the
        // surplus back (no lost lease) so it does not wait in memory holding a lease.
        await store.release(claim).catch((error: unknown) => {
          logger?.warn?.('could not release a surplus claim; it is retried when its lease ends', {
            deliveryId: claim.id,
            error: describe(error),
          });
        });
        continue;
      }
      // The slot is given back as soon as the exchange ends, before its result is written, so
      // the store's group commit never holds an HTTP slot idle (a second call does nothing).
      const freeSlot = (timedOut = false) => slots.release(slot, timedOut);
      const task: Promise<void> = runAttempt(ctx, claim, freeSlot)
        // runAttempt handles every expected failure; anything else (a corrupt stored secret, a
        // bug) must not become an unhandled rejection that ends the process: the lease ends
        // and the delivery is tried again.
        .catch((error: unknown) => {
          logger?.error?.('attempt failed unexpectedly; the delivery is retried when its lease ends', {
            deliveryId: claim.id,
            error: describe(error),
          });
        })
        .finally(() => {
          freeSlot();
          unfinished.delete(task);
        });
      unfinished.add(task);
    }
    return claims.length > 0 && slots.hasRoom();
  }

  async function idle(): Promise<void> {
    const room = slots.room();
    if (room === undefined) {
      // Every slot is taken: only a freed or moved slot, or stop(), gives work, and each wakes the loop.
      passStartedAt = undefined;
      await wakeup.wait();
      return;
    }
    const due = await store.nextDueAt(room.excludeOrigins, room);
    const sleepMs = due === undefined ? resolved.pollIntervalMs : Math.min(resolved.pollIntervalMs, due - clock.now());
    // From here on the loop waits (for work, a wake-up or a retry of a racing claim): not busy.
    passStartedAt = undefined;
    if (sleepMs <= 0) {
      // Due but not claimable right now (another worker's claim is committing): yield briefly
      // on the real clock instead of spinning on the store.
      await new Promise((resolve) => setTimeout(resolve, 2));
      return;
    }
    const interrupt = new AbortController();
    await Promise.race([clock.sleep(sleepMs, interrupt.signal), wakeup.wait(interrupt.signal)]);
    // A reason of its own: abort() without one builds a DOMException on every idle pass.
    interrupt.abort(SLEEP_OVER);
  }

  async function run(): Promise<void> {
    while (running) {
      // Let the I/O callbacks of this turn finish first: attempts completing together free
      // their slots together, and one claim then fills them all.
      await new Promise((resolve) => setImmediate(resolve));
      wakeup.reset();
      passStartedAt = performance.now();
      try {
        const gateState = gate.check();
        if (gateState === 'fenced') break;
        if (gateState === 'paused') {
          passStartedAt = undefined;
          await pauseFor(resolved.pollIntervalMs);
          continue;
        }
        if (await fill()) continue;
        if (!running) break;
        await idle();
      } catch (error) {
        // The failure is the store's, and readiness probes read the store on their own.
        passStartedAt = undefined;
        if (gate.check() === 'fenced') break;
        logger?.error?.('delivery loop: store call failed; retrying after the poll interval', {
          error: describe(error),
        });
        await pauseFor(resolved.pollIntervalMs);
      }
    }
    passStartedAt = undefined;
  }

  /** Waits `ms` of engine time, or until something wakes the loop. */
  async function pauseFor(ms: number): Promise<void> {
    const pause = new AbortController();
    await Promise.race([clock.sleep(ms, pause.signal), wakeup.wait(pause.signal)]);
    pause.abort(SLEEP_OVER);
  }

  return {
    async enqueue(event, insertOptions) {
      // Telemetry's optional API is loaded once; the span needs to know whether it is there.
      await telemetryReady;
      const result = await storeEvent({ store, clock, telemetry, checkUrl, ready }, event, insertOptions);
      wakeup.wake();
      return result;
    },

    start() {
      // Two overlapping calls share one start: a second loop would double every claim.
      starting ??= (async () => {
        await stopping;
        if (running) return;
        await Promise.all([ready(), telemetryReady]);
        // A second engine on an owned file is refused here, with the store's advice, not later in the loop.
        await store.acquireOwnership?.();
        unobserve ??= observeGauges({ telemetry, store, clock, logger, lanes: () => slots.snapshot() });
        // Subscribed before `running`: if LISTEN fails, start() rejects and may simply be called again.
        if (store.subscribe !== undefined) unsubscribe = await store.subscribe(() => wakeup.wake());
        abort = new AbortController();
        // Every attempt in flight listens on this one signal; the count is bounded by both lanes.
        setMaxListeners(resolved.concurrency + resolved.slowConcurrency + 10, abort.signal);
        running = true;
        loop = run();
      })().finally(() => {
        starting = undefined;
      });
      return starting;
    },

    async stop(stopOptions) {
      const graceMs = checkGrace(stopOptions, resolved.deadlineMs);
      await starting?.catch(() => undefined);
      // A second stop() waits for the first to finish draining rather than returning early.
      if (!running) return stopping;
      running = false;
      stopping = (async () => {
        wakeup.wake();
        await loop;
        // Claims the store held ahead were never sent: they go back now, not when their lease ends.
        await store.releaseHeld?.().catch((error: unknown) => {
          logger?.warn?.('claims held ahead not given back; due when their lease ends', { error: describe(error) });
        });
        const drained = Promise.all(unfinished);
        const timer = new AbortController();
        await Promise.race([drained, systemClock.sleep(graceMs, timer.signal)]);
        timer.abort();
        abort.abort();
        await settledUnlessHeld(unfinished, store);
        await sender.close();
        slots.close();
        await unsubscribe?.();
        unsubscribe = undefined;
        unobserve?.();
        unobserve = undefined;
      })();
      return stopping;
    },

    async getDelivery(id) {
      checkId('getDelivery', id);
      await ready();
      return store.get(id);
    },

    async listDeliveries(filter) {
      const checked = checkFilter(filter);
      await ready();
      return store.list(checked);
    },

    loopHealth() {
      const busyMs = passStartedAt === undefined ? 0 : Math.round(performance.now() - passStartedAt);
      const storeHealth = store.health?.();
      return { running, busyMs, lanes: slots.snapshot(), ...(storeHealth !== undefined && { store: storeHealth }) };
    },

    async redeliver(id) {
      checkId('redeliver', id);
      await ready();
      const result = await store.redeliver(id, clock.now());
      if (result === 'not_found')
        throw new DeliveryEngineError('not_found', `redeliver: no delivery with id ${showId(id)}`);
      if (result === 'in_progress') {
        throw new DeliveryEngineError(
          'in_progress',
          `redeliver: delivery ${showId(id)} is still pending; wait until it ends`,
        );
      }
      wakeup.wake();
    },
  };
}
