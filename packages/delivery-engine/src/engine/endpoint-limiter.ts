/**
 * Counts attempts in flight per origin in this process. An origin at its limit is left out of
 * the next claim, so a dead endpoint holds at most `perEndpoint` slots and never the queue.
 */
export interface EndpointLimiter {
  tryAcquire(origin: string): boolean;
  release(origin: string): void;
  /** Origins at their limit now. */
  saturated(): string[];
  /** Origins below their limit with attempts in flight, and how many. */
  busy(): [origin: string, inFlight: number][];
}

export function createEndpointLimiter(perEndpoint: number): EndpointLimiter {
  const active = new Map<string, number>();
  return {
    tryAcquire(origin) {
      const count = active.get(origin) ?? 0;
      if (count >= perEndpoint) return false;
      active.set(origin, count + 1);
      return true;
    },
    release(origin) {
      const count = (active.get(origin) ?? 0) - 1;
      // Deleting at zero keeps the map as small as the set of busy endpoints.
      if (count <= 0) active.delete(origin);
      else active.set(origin, count);
    },
    saturated() {
      const full: string[] = [];
      for (const [origin, count] of active) if (count >= perEndpoint) full.push(origin);
      return full;
    },
    busy() {
      const partly: [string, number][] = [];
      for (const [origin, count] of active) if (count < perEndpoint) partly.push([origin, count]);
      return partly;
    },
  };
}
