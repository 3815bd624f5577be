import type { AttemptRecord, DeliveryStore, NewDelivery } from '../../src/index.js';

/** A fresh, empty store plus a way to open a second handle on the same data (another process's view). */
export interface ConformanceFixture {
  readonly store: DeliveryStore<unknown>;
  openAnother(): Promise<DeliveryStore<unknown>>;
  /**
   * The store allows one writer (SQLite): a second handle may read, and its writes are refused
   * with `store_locked`, instead of taking turns with the first. Its claims live in the owning
   * process: one never lapses while that process holds it; a successor holds the predecessor's
   * attempts in flight for one lease instead.
   */
  readonly oneWriter?: boolean;
  /**
   * Ends every lease now, for a store whose leases run on a clock of its own (Postgres: the
   * database's `now()`), which the `now` a test passes does not move.
   */
  endLeases?(): Promise<void>;
  cleanup(): Promise<void>;
}

export const T0 = 1_800_000_000_000;
export const LEASE = 45_000;

export function delivery(id: string, overrides: Partial<NewDelivery> = {}): NewDelivery {
  return {
    id,
    url: 'https://a.example/hook',
    origin: 'https://a.example',
    authKey: 'k-secret-value-123456',
    signingSecret: undefined,
    body: `{"id":"${id}"}`,
    createdAt: T0,
    ...overrides,
  };
}

export function attempt(n: number, outcome: string, overrides: Partial<AttemptRecord> = {}): AttemptRecord {
  return {
    attempt: n,
    round: 1,
    startedAt: T0,
    requestHeaders: { authorization: '[redacted]', 'x-n': String(n) },
    status: 500,
    outcome,
    dialedAddress: '127.0.0.1',
    latencyMs: 12,
    responseSnippet: 'oops',
    errorMessage: undefined,
    unrecordedSends: 0,
    ...overrides,
  };
}

/** What a test of the conformance suite works on: the fixture of this test and its store. */
export interface ConformanceContext {
  readonly fixture: ConformanceFixture;
  readonly store: DeliveryStore<unknown>;
  /** Claims with the suite's lease. */
  claim(now: number, limit?: number, excludeOrigins?: string[]): ReturnType<DeliveryStore<unknown>['claim']>;
}
