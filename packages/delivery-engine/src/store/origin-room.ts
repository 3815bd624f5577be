import type { ClaimRequest } from './store.js';

/** The parts of a claim that decide how many deliveries of each origin it may take. */
export type RoomRequest = Pick<ClaimRequest, 'limit' | 'excludeOrigins' | 'maxPerOrigin' | 'busyOrigins'>;

/**
 * Splits `items` (in due order) into those a claim hands out now and those it keeps: at most
 * `request.limit`, each only while its origin has room (`maxPerOrigin` less `busyOrigins`, less one
 * per origin in `alreadyTaken`, less what this call took; none for `excludeOrigins`) and only if
 * `eligible` says so. The one rule every store's claim applies to what it holds in memory.
 */
export function takeWithRoom<T>(
  items: readonly T[],
  request: RoomRequest,
  originOf: (item: T) => string,
  options: { readonly alreadyTaken?: readonly string[]; readonly eligible?: (item: T) => boolean } = {},
): { taken: T[]; kept: T[] } {
  const taken: T[] = [];
  const kept: T[] = [];
  const alreadyTaken = options.alreadyTaken ?? [];
  const limit = request.limit - alreadyTaken.length;
  const maxPerOrigin = request.maxPerOrigin ?? request.limit;
  const inFlight = new Map<string, number>(request.busyOrigins);
  for (const origin of request.excludeOrigins) inFlight.set(origin, maxPerOrigin);
  for (const origin of alreadyTaken) inFlight.set(origin, (inFlight.get(origin) ?? 0) + 1);
  for (const item of items) {
    const origin = originOf(item);
    const count = inFlight.get(origin) ?? 0;
    if (taken.length >= limit || count >= maxPerOrigin || options.eligible?.(item) === false) kept.push(item);
    else {
      inFlight.set(origin, count + 1);
      taken.push(item);
    }
  }
  return { taken, kept };
}
