import type { ClaimRequest } from './store.js';

/**
 * The ids among `candidates` (oldest first) that fit each origin's room: at most
 * `maxPerOrigin` per origin, less the attempts an origin already has in flight. Done here
 * rather than in SQL because SQLite's window function over the candidates cost twice as much
 * as the whole rest of the claim.
 */
export function withinOriginRoom(
  candidates: readonly { readonly id: string; readonly origin: string }[],
  request: Pick<ClaimRequest, 'limit' | 'maxPerOrigin' | 'busyOrigins'>,
): string[] {
  const maxPerOrigin = request.maxPerOrigin ?? request.limit;
  const taken = new Map<string, number>(request.busyOrigins);
  const ids: string[] = [];
  for (const { id, origin } of candidates) {
    const inFlight = taken.get(origin) ?? 0;
    if (inFlight >= maxPerOrigin) continue;
    taken.set(origin, inFlight + 1);
    ids.push(id);
  }
  return ids;
}
