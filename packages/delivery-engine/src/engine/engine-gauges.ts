import type { DeliveryStore } from '../store/store.js';
import type { EngineTelemetry } from '../telemetry/engine-telemetry.js';
import type { LanesSnapshot } from './attempt-slots.js';
import type { Clock } from './clock.js';
import type { DeliveryEngineLogger } from './options.js';
import { describe } from './run-attempt.js';

/**
 * Registers the engine's gauges: the lanes (always) and the queue and the store's health (for a
 * store that counts its queue). Returns the one function that unregisters them all.
 */
export function observeGauges(parts: {
  readonly telemetry: EngineTelemetry;
  readonly store: DeliveryStore<unknown>;
  readonly clock: Clock;
  readonly logger: DeliveryEngineLogger | undefined;
  readonly lanes: () => LanesSnapshot;
}): () => void {
  const { telemetry, store, clock, logger } = parts;
  const unobserveLanes = telemetry.observeLanes(parts.lanes);
  const queueStats = store.queueStats?.bind(store);
  const unobserveQueue =
    queueStats === undefined
      ? undefined
      : telemetry.observeQueue(
          () => queueStats(clock.now()),
          () => clock.now(),
          (error) => logger?.warn?.('queue gauges: the store did not answer', { error: describe(error) }),
          () => store.health?.(),
        );
  return () => {
    unobserveLanes();
    unobserveQueue?.();
  };
}
