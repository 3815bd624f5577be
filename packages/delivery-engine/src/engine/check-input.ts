import { DeliveryEngineError } from '../delivery-engine-error.js';
import type { DeliveryFilter, DeliveryState } from '../store/store.js';

const STATES: readonly DeliveryState[] = ['pending', 'delivered', 'failed'];
const FILTER_KEYS = new Set(['state', 'url', 'createdSince', 'createdBefore', 'limit']);
/** Ids are echoed in messages: a caller's garbage is cut to this length. */
const SHOWN_ID = 80;

function invalid(message: string): DeliveryEngineError {
  return new DeliveryEngineError('invalid_option', message);
}

/**
 * Checks a `listDeliveries` filter before it reaches SQL: a wrong type would otherwise surface
 * as an opaque store error, or (a misspelt key) silently list everything.
 */
export function checkFilter(filter: unknown): DeliveryFilter | undefined {
  if (filter === undefined) return undefined;
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) {
    throw invalid('listDeliveries: the filter must be an object such as { state: "failed" }');
  }
  const f = filter as Record<string, unknown>;
  for (const key of Object.keys(f)) {
    if (!FILTER_KEYS.has(key)) {
      throw invalid(
        `listDeliveries: unknown filter key ${JSON.stringify(key.slice(0, 40))}; use ${[...FILTER_KEYS].join(', ')}`,
      );
    }
  }
  if (f.state !== undefined && !STATES.includes(f.state as DeliveryState)) {
    throw invalid(`listDeliveries: filter.state must be one of ${STATES.join(', ')}`);
  }
  if (f.url !== undefined && typeof f.url !== 'string') throw invalid('listDeliveries: filter.url must be a string');
  for (const key of ['createdSince', 'createdBefore'] as const) {
    const value = f[key];
    if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value))) {
      throw invalid(`listDeliveries: filter.${key} must be epoch milliseconds (a finite number)`);
    }
  }
  if (f.limit !== undefined && (typeof f.limit !== 'number' || !Number.isInteger(f.limit) || f.limit < 1)) {
    throw invalid('listDeliveries: filter.limit must be a positive integer (at most 1000 are returned)');
  }
  return f as DeliveryFilter;
}

/** Checks a delivery id given to `getDelivery` or `redeliver`. */
export function checkId(where: string, id: unknown): string {
  if (typeof id !== 'string' || id.length === 0) {
    throw new DeliveryEngineError('invalid_event', `${where}: id must be a non-empty string (got ${typeof id})`);
  }
  return id;
}

/** An id as it may appear in a message: cut, and quoted so control characters show. */
export function showId(id: string): string {
  return JSON.stringify(id.length > SHOWN_ID ? `${id.slice(0, SHOWN_ID)}…` : id);
}

/** Checks `stop()` options. */
export function checkGrace(options: unknown, fallback: number): number {
  if (options === undefined) return fallback;
  if (options === null || typeof options !== 'object')
    throw invalid('stop: options must be an object such as { graceMs: 5000 }');
  const graceMs = (options as { graceMs?: unknown }).graceMs;
  if (graceMs === undefined) return fallback;
  if (typeof graceMs !== 'number' || !Number.isFinite(graceMs) || graceMs < 0) {
    throw invalid('stop: graceMs must be a number of milliseconds, 0 or more');
  }
  return graceMs;
}
