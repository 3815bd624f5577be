import { join } from 'node:path';
import { type AttemptRecord, type DeliveryStore, type NewDelivery, sqliteDeliveryStore } from '@kyc/delivery-engine';
import { postgresDeliveryStore } from '@kyc/delivery-engine/postgres';
import { POSTGRES_URL } from '@kyc/test-support';
import Database from 'better-sqlite3';
import pg from 'pg';
import { median, range } from './stats.js';

/** Rows due behind one saturated origin. */
const BACKLOGS = [0, 10_000, 100_000] as const;
/** Calls per round: an idle pass is a few µs, so many make a measurable span. */
const IDLE_CALLS = 5000;
const CLAIM_CALLS = 300;
const FLOOD = 'https://flood.bench';
const OTHER = 'https://other.bench';
const T0 = 1_800_000_000_000;
const LEASE = 45_000;
const body = JSON.stringify({ sessionId: 'bench' });

const row = (id: string, origin: string, at: number): NewDelivery => ({
  id,
  url: `${origin}/hook`,
  origin,
  authKey: undefined,
  signingSecret: undefined,
  body,
  createdAt: at,
});

const ATTEMPT: AttemptRecord = {
  attempt: 1,
  round: 1,
  startedAt: T0,
  requestHeaders: {},
  status: 200,
  outcome: 'delivered',
  dialedAddress: undefined,
  latencyMs: 1,
  responseSnippet: undefined,
  errorMessage: undefined,
  unrecordedSends: 0,
};

interface Fixture {
  readonly backlog: number;
  readonly store: DeliveryStore<unknown>;
  close(): Promise<void>;
}

/** A SQLite file with `backlog` rows of one origin due, written in one transaction, then opened by the store. */
async function sqliteFixture(dir: string, backlog: number): Promise<Fixture> {
  const path = join(dir, `claim-cost-${backlog}.db`);
  const first = sqliteDeliveryStore({ path });
  await first.migrate();
  await first.close();
  const raw = new Database(path);
  const insert = raw.prepare(
    'INSERT INTO deliveries (id, url, origin, body, created_at, next_attempt_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  raw.transaction(() => {
    for (let i = 0; i < backlog; i++) insert.run(`f${i}`, `${FLOOD}/hook`, FLOOD, body, T0 + i, T0 + i);
  })();
  raw.close();
  const store = sqliteDeliveryStore({ path });
  return { backlog, store, close: () => store.close() };
}

async function postgresFixture(pool: pg.Pool, backlog: number): Promise<Fixture> {
  const schema = `kyc_claim_cost_${backlog}_${process.pid}`;
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  const store = postgresDeliveryStore({ pool, schema });
  await store.migrate();
  await pool.query(
    `INSERT INTO ${schema}.deliveries (id, url, origin, body, created_at, next_attempt_at)
     SELECT 'f' || g, $1, $2, $3, $4::bigint + g, $4::bigint + g FROM generate_series(0, $5::int - 1) g`,
    [`${FLOOD}/hook`, FLOOD, body, T0, backlog],
  );
  await pool.query(`ANALYZE ${schema}.deliveries`);
  return { backlog, store, close: () => pool.query(`DROP SCHEMA ${schema} CASCADE`).then(() => undefined) };
}

/** Cost of one call: CPU µs of this process (SQLite does its work here), or wall µs (Postgres does it there). */
function meter(kind: 'cpu' | 'wall') {
  if (kind === 'wall') {
    const started = performance.now();
    return () => (performance.now() - started) * 1000;
  }
  const started = process.cpuUsage();
  return () => {
    const { user, system } = process.cpuUsage(started);
    return user + system;
  };
}

/**
 * One round: `IDLE_CALLS` idle passes (`nextDueAt` past the saturated origin) and `CLAIM_CALLS` claims that
 * must find the one due delivery of another origin behind the backlog. Returns µs per call.
 */
async function round(fixture: Fixture, kind: 'cpu' | 'wall', serial: number): Promise<{ idle: number; claim: number }> {
  const { store } = fixture;
  const lanes = { limit: 16 };
  let stop = meter(kind);
  for (let i = 0; i < IDLE_CALLS; i++) await store.nextDueAt([FLOOD], lanes);
  const idle = stop() / IDLE_CALLS;
  let claimUs = 0;
  for (let i = 0; i < CLAIM_CALLS; i++) {
    const id = `o${serial}-${i}`;
    await store.insert(row(id, OTHER, T0 + 200_000 + i));
    stop = meter(kind);
    const claims = await store.claim({
      now: T0 + 1_000_000,
      limit: 16,
      leaseMs: LEASE,
      excludeOrigins: [FLOOD],
      maxPerOrigin: 4,
      busyOrigins: [],
    });
    claimUs += stop();
    const [claim] = claims;
    if (claims.length !== 1 || claim?.id !== id)
      throw new Error(`the claim behind ${fixture.backlog} rows found ${claims.length}`);
    await store.complete(claim, ATTEMPT, { state: 'delivered', nextAttemptAt: undefined, finishedAt: T0 });
  }
  return { idle, claim: claimUs / CLAIM_CALLS };
}

async function compare(label: string, fixtures: Fixture[], kind: 'cpu' | 'wall', rounds: number): Promise<void> {
  const idle = new Map<number, number[]>(fixtures.map((f) => [f.backlog, []]));
  const claim = new Map<number, number[]>(fixtures.map((f) => [f.backlog, []]));
  for (let r = 0; r < rounds; r++) {
    for (const fixture of fixtures) {
      const result = await round(fixture, kind, r);
      idle.get(fixture.backlog)?.push(result.idle);
      claim.get(fixture.backlog)?.push(result.claim);
    }
  }
  const base = (map: Map<number, number[]>) => median(map.get(0) ?? []);
  const cell = (map: Map<number, number[]>, backlog: number) => {
    const values = map.get(backlog) ?? [];
    return `${median(values).toFixed(1)} µs [${range(values, 1)}] ${(median(values) / base(map)).toFixed(2)}×`;
  };
  console.log(
    `${label} (µs ${kind === 'cpu' ? 'of CPU' : 'of wall time'} per call, median [range] of ${rounds} interleaved rounds, ratio to no backlog)`,
  );
  for (const backlog of BACKLOGS) {
    console.log(
      `  ${String(backlog).padStart(7)} rows behind   idle pass ${cell(idle, backlog)}   claim ${cell(claim, backlog)}`,
    );
  }
}

/**
 * Finding work whatever one origin's backlog (issue 40): the idle pass and the claim with 0,
 * 10 000 and 100 000 due rows of one saturated origin, on SQLite and Postgres. Target: within
 * 20 % of the no-backlog cost.
 */
export async function claimCostSection(dir: string, rounds: number, withPostgres: boolean): Promise<void> {
  console.log('\n## Finding work behind one saturated origin: idle pass and claim (target: within 20 % of no backlog)');
  const sqlite = await Promise.all(BACKLOGS.map((backlog) => sqliteFixture(dir, backlog)));
  try {
    await compare('SQLite owner', sqlite, 'cpu', rounds);
  } finally {
    await Promise.all(sqlite.map((fixture) => fixture.close()));
  }
  if (!withPostgres) return;
  const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 4 });
  try {
    const postgres = await Promise.all(BACKLOGS.map((backlog) => postgresFixture(pool, backlog)));
    try {
      await compare('Postgres', postgres, 'wall', rounds);
    } finally {
      await Promise.all(postgres.map((fixture) => fixture.close()));
    }
  } finally {
    await pool.end();
  }
}
