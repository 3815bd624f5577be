import { createTestCertificate, type TestCertificate } from '@kyc/test-support';
import Database from 'better-sqlite3';
import type pg from 'pg';

/** One isolation scenario: how many endpoints of each kind, the load, the phases. */
export interface IsolationPlan {
  readonly store: 'sqlite' | 'postgres';
  /** Engine processes (Postgres; the SQLite owner is one). */
  readonly workers: number;
  /** Endpoints that always answer 200 in 5 ms. */
  readonly healthy: number;
  /** Endpoints that, in the fault phase, accept the request and never answer. */
  readonly dead: number;
  /** Endpoints that, in the fault phase, answer 200 after `slowAnswerMs`. */
  readonly slow: number;
  readonly slowAnswerMs?: number;
  /** Events a second, spread evenly over every endpoint. */
  readonly ratePerSec: number;
  readonly controlMs: number;
  readonly faultMs: number;
  /** After the load stops: time for the healthy backlog, if any, to arrive. */
  readonly drainMs: number;
  /** Events enqueued at once to one more (healthy, fast) endpoint, a second into the fault phase. */
  readonly flood?: number;
  /**
   * One event to every endpoint, all delivered, before the control phase, and judge that healthy
   * requests to endpoints already contacted reuse their connections.
   */
  readonly warmConnections?: boolean;
}

/** What the children printed. */
export interface Observed {
  /** Event id → when its enqueue was acknowledged. */
  readonly acks: Map<string, number>;
  /** Event id → its first request's arrival, host, whether it opened a connection, and how many requests came. */
  readonly arrivals: Map<string, { at: number; host: string; opened: boolean; count: number }>;
  /** The engines' `M` lines: phase, rss, fds, heap, cpu µs, prompt in flight, slow in flight, slow origins. */
  readonly stats: { worker: number; fields: string[] }[];
  flood: { count: number; first: number; last: number } | undefined;
}

/** Rows in the store at the end, by the kind of endpoint (the host's first letter) and state. */
export type StoreCounts = Map<string, { pending: number; delivered: number; failed: number }>;

let certificate: Promise<TestCertificate> | undefined;

/** One certificate for every `<host>.isolation.test`. */
export const isolationCertificate = (): Promise<TestCertificate> =>
  (certificate ??= createTestCertificate(['*.isolation.test']));

const KIND_SQL = `substr(id, 1, 1) AS kind, state, count(*) AS n`;

/** Counts the store's rows at the end: the SQLite file read directly, or the Postgres schema. */
export async function storeCounts(
  store: 'sqlite' | 'postgres',
  where: string,
  admin: pg.Pool | undefined,
): Promise<StoreCounts> {
  let rows: { kind: string; state: string; n: number | string }[];
  if (store === 'sqlite') {
    const db = new Database(where, { readonly: true });
    rows = db.prepare(`SELECT ${KIND_SQL} FROM deliveries GROUP BY 1, 2`).all() as typeof rows;
    db.close();
  } else {
    rows = (await admin?.query(`SELECT ${KIND_SQL} FROM ${where}.deliveries GROUP BY 1, 2`))?.rows ?? [];
  }
  const counts: StoreCounts = new Map();
  for (const row of rows) {
    const entry = counts.get(row.kind) ?? { pending: 0, delivered: 0, failed: 0 };
    if (row.state === 'pending' || row.state === 'delivered' || row.state === 'failed')
      entry[row.state] += Number(row.n);
    counts.set(row.kind, entry);
  }
  return counts;
}
