import { errorFields } from './error-fields.js';
import type { ResolvedOptions } from './resolve-options.js';

/**
 * Keeps a claim alive while its handler runs: renews the lease every third of `leaseMs`, so a
 * handler that outlives the lease (long after the 503 answer) is never run a second time by a
 * redelivery. The returned function stops renewing and waits for a renewal in flight, so none
 * lands after the claim was completed or released. A store without `extend` is left to its lease.
 */
export function keepClaim(
  options: ResolvedOptions,
  key: string,
  token: string,
  fields: Record<string, unknown>,
): () => Promise<void> {
  const { store, logger, leaseMs } = options;
  const extend = store.extend?.bind(store);
  if (extend === undefined) return () => Promise.resolve();
  let inFlight: Promise<void> = Promise.resolve();
  let stopped = false;
  const timer = setInterval(
    () => {
      inFlight = inFlight.then(() =>
        extend(key, token, { leaseMs }).then(
          (held) => {
            if (held || stopped) return;
            clearInterval(timer);
            logger.warn?.('idempotency claim lost while the handler runs; a redelivery may run it again', fields);
          },
          (error: unknown) => logger.error?.('idempotency store: extend failed', { ...fields, ...errorFields(error) }),
        ),
      );
    },
    Math.max(1, Math.floor(leaseMs / 3)),
  );
  return () => {
    stopped = true;
    clearInterval(timer);
    return inFlight;
  };
}
