import type { DeliveryStore } from '../store/store.js';
import { wallSleep } from './clock.js';
import type { DeliveryEngineLogger } from './options.js';

/** What the loop may do now: claim, wait for the store to write again, or stop for good. */
export type GateState = 'open' | 'paused' | 'fenced';

/**
 * Whether the loop may claim, from the store's own health (no store call). While the store cannot
 * write (a full disk, an I/O error) nothing new is sent: each send would be a result the store
 * could only hold, and our outage is not the endpoint's failure. A store fenced off by another
 * owner never claims again. Each change is logged once, not on every pass.
 */
export function createStoreGate(store: DeliveryStore<unknown>, logger: DeliveryEngineLogger | undefined) {
  let state: GateState = 'open';
  return {
    check(): GateState {
      const health = store.health?.();
      const next: GateState = health === undefined || health.writable ? 'open' : health.fenced ? 'fenced' : 'paused';
      if (next === state) return state;
      if (next === 'fenced') {
        logger?.error?.('delivery loop: another engine owns the store now; this one claims nothing more', {
          problem: health?.problem,
          heldResults: health?.heldResults,
        });
      } else if (next === 'paused') {
        logger?.error?.('delivery loop: the store cannot write; claiming paused, finished results held until it can', {
          problem: health?.problem,
          heldResults: health?.heldResults,
        });
      } else {
        logger?.warn?.('delivery loop: the store writes again; claiming resumes', {});
      }
      state = next;
      return state;
    },
  };
}

/** How often `stop()` looks again whether the store still writes while it waits for attempts. */
const STOP_POLL_MS = 100;

/**
 * Waits for the attempts to settle, unless the store holds their results because it cannot write
 * (a full disk): those settle only when it writes again or closes, and `stop()` must not wait on
 * them for ever. A result the store could not write is sent again by the next owner, and counted
 * in the attempt log. (Checked here, once per stop, not by every attempt.)
 */
export async function settledUnlessHeld(
  unfinished: ReadonlySet<Promise<void>>,
  store: DeliveryStore<unknown>,
): Promise<void> {
  while (unfinished.size > 0 && store.health?.().writable !== false) {
    const tick = new AbortController();
    await Promise.race([Promise.all(unfinished), wallSleep(STOP_POLL_MS, tick.signal)]);
    tick.abort();
  }
}
