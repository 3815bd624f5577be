import type { ClaimResult } from './store.js';

/** One store operation, as the store sends it to the Durable Object that owns the key. */
export type IdempotencyOperation =
  | { readonly op: 'claim'; readonly leaseMs: number }
  | { readonly op: 'complete'; readonly token: string; readonly ttlMs: number }
  | { readonly op: 'extend'; readonly token: string; readonly leaseMs: number }
  | { readonly op: 'release'; readonly token: string };

/** What the object answers: a claim result, or whether `complete`/`extend`/`release` acted. */
export type IdempotencyReply = ClaimResult | { readonly done: boolean };

/** Checks an operation that came over the wire (only our store sends them, but a stub is reachable by any code in the Worker). */
export function isIdempotencyOperation(value: unknown): value is IdempotencyOperation {
  if (typeof value !== 'object' || value === null || !('op' in value)) return false;
  const v = value as Record<string, unknown>;
  const ms = (name: string) => typeof v[name] === 'number' && Number.isFinite(v[name]) && (v[name] as number) >= 0;
  const token = typeof v.token === 'string' && v.token.length > 0;
  switch (v.op) {
    case 'claim':
      return ms('leaseMs');
    case 'complete':
      return token && ms('ttlMs');
    case 'extend':
      return token && ms('leaseMs');
    case 'release':
      return token;
    default:
      return false;
  }
}
