import type { ClaimRequest } from './store.js';

/**
 * The `candidates` (oldest first) that fit each origin's room: at most `maxPerOrigin` per
 * origin, less the attempts an origin already has in flight. Done here rather than in SQL
 * because SQLite's window function over the candidates cost twice as much as the whole rest of
 * the claim.
 */
export function withinOriginRoom<Candidate extends { readonly origin: string }>(
  candidates: readonly Candidate[],
  request: Pick<ClaimRequest, 'limit' | 'maxPerOrigin' | 'busyOrigins'>,
): Candidate[] {
  const maxPerOrigin = request.maxPerOrigin ?? request.limit;
  const taken = new Map<string, number>(request.busyOrigins);
  const chosen: Candidate[] = [];
  for (const candidate of candidates) {
    const inFlight = taken.get(candidate.origin) ?? 0;
    if (inFlight >= maxPerOrigin) continue;
    taken.set(candidate.origin, inFlight + 1);
    chosen.push(candidate);
  }
  return chosen;
}
