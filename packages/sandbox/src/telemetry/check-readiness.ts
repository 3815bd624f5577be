import type { Readiness } from './ops-routes.js';

/** How long a store may take to answer a readiness probe before it counts as failing. */
const PROBE_TIMEOUT_MS = 2000;

async function probe(check: () => unknown): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      Promise.resolve()
        .then(check)
        .then(() => true),
      timeout,
    ]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Ready means: the delivery loop was started and not stopped, the sandbox database answers,
 * and the delivery store answers with its migrations applied. The reason names the first
 * failing check, never an error message (which could name a file path or a query).
 */
export async function checkReadiness(checks: {
  readonly started: () => boolean;
  readonly sandboxStore: () => unknown;
  readonly deliveryStore: () => unknown;
}): Promise<Readiness> {
  const [sandboxStore, deliveryStore] = await Promise.all([probe(checks.sandboxStore), probe(checks.deliveryStore)]);
  const loop = checks.started();
  const results = {
    delivery_loop: loop ? 'ok' : 'failing',
    sandbox_store: sandboxStore ? 'ok' : 'failing',
    delivery_store: deliveryStore ? 'ok' : 'failing',
  } as const;
  const reason = !loop
    ? 'the delivery loop is not running'
    : !deliveryStore
      ? 'the delivery store does not answer'
      : !sandboxStore
        ? 'the sandbox database does not answer'
        : undefined;
  return reason === undefined ? { ready: true, checks: results } : { ready: false, reason, checks: results };
}
