import { WEBHOOK_RESPONSE_DEADLINE_MS } from '@kyc/contracts';
import type { LoopHealth } from '@kyc/delivery-engine';
import type { Readiness } from './ops-routes.js';

/** How long a store may take to answer a readiness probe before it counts as failing. */
const PROBE_TIMEOUT_MS = 2000;
/**
 * How long one pass of the delivery loop (a claim, a next-due read) may take before the loop
 * counts as stuck: two response deadlines (a minute). A pass never waits on an endpoint and
 * takes milliseconds; by this point every attempt claimed before it has passed its own
 * deadline, so the loop is in a hung store call, not a slow one.
 */
export const LOOP_STALL_MS = 2 * WEBHOOK_RESPONSE_DEADLINE_MS;

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
 * Ready means: the delivery loop was started, not stopped, and is not stuck in one store call
 * for {@link LOOP_STALL_MS}; the sandbox database answers; the delivery store answers with its
 * migrations applied. The reason names the first failing check, never an error message (which
 * could name a file path or a query).
 */
export async function checkReadiness(checks: {
  readonly loop: () => Pick<LoopHealth, 'running' | 'busyMs' | 'store'>;
  readonly sandboxStore: () => unknown;
  readonly deliveryStore: () => unknown;
}): Promise<Readiness> {
  const [sandboxStore, deliveryStore] = await Promise.all([probe(checks.sandboxStore), probe(checks.deliveryStore)]);
  const health = checks.loop();
  const stuck = health.running && health.busyMs >= LOOP_STALL_MS;
  const loop = health.running && !stuck;
  // A store that answers reads but cannot write (a full disk, fenced off by another engine)
  // claims nothing: not ready, though every probe answers.
  const writable = health.store?.writable !== false;
  const results = {
    delivery_loop: loop ? 'ok' : 'failing',
    sandbox_store: sandboxStore ? 'ok' : 'failing',
    delivery_store: deliveryStore && writable ? 'ok' : 'failing',
  } as const;
  const reason = !health.running
    ? 'the delivery loop is not running'
    : stuck
      ? `the delivery loop has waited ${Math.round(health.busyMs / 1000)} s on one store call`
      : !deliveryStore
        ? 'the delivery store does not answer'
        : health.store?.fenced
          ? 'another delivery engine owns the delivery store now; this one claims nothing'
          : !writable
            ? `the delivery store cannot write; ${health.store?.heldResults ?? 0} finished results are held until it can`
            : !sandboxStore
              ? 'the sandbox database does not answer'
              : undefined;
  return reason === undefined ? { ready: true, checks: results } : { ready: false, reason, checks: results };
}
