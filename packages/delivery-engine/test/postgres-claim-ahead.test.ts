import { postgresAvailable } from '@kyc/test-support';
import { describe, expect, it } from 'vitest';
import { type ClaimRequest, createDeliveryEngine } from '../src/index.js';
import { postgresDeliveryStore } from '../src/postgres.js';
import { CLAIM_AHEAD_ROWS } from '../src/store/postgres/claim-ahead.js';
import { bodyFor } from './support/attempts.js';
import { delivery, LEASE, T0 } from './support/conformance-rows.js';
import { poolsEndedAfterAll, TEST_SEALING_KEYS, uniqueSchema } from './support/postgres-schema.js';
import { loopbackOptions, startReceiver } from './support/receiver.js';

// A Postgres worker claims beyond its free slots while the queue is deep (a statement per slot
// that freed was most of the cost of 4 workers): what it holds must stay its own, be given back
// unsent when it ages or the engine stops, and never be counted as a lost lease.
const available = await postgresAvailable();
const newPool = poolsEndedAfterAll();

const request = (limit: number, overrides: Partial<ClaimRequest> = {}): ClaimRequest => ({
  now: T0 + 60_000,
  limit,
  leaseMs: LEASE,
  excludeOrigins: [],
  // One endpoint's room is no limit here unless a test sets it.
  maxPerOrigin: 1000,
  holdMs: 1000,
  ...overrides,
});

async function twoWorkers(label: string, rows: number, origin = (_: number) => 'https://a.example') {
  const schema = uniqueSchema(label);
  const pool = newPool();
  const first = postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool, schema });
  const second = postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool: newPool(), schema });
  await first.migrate();
  for (let i = 0; i < rows; i++) await first.insert(delivery(`d${i}`, { origin: origin(i), createdAt: T0 + i }));
  const leased = async () =>
    Number((await pool.query(`SELECT count(*)::int AS n FROM ${schema}.deliveries WHERE leased = 1`)).rows[0]?.n);
  /** Rows d<from>…d<to> still leased under their first claim's token. */
  const stillFirstLeased = async (from: number, to: number) =>
    Number(
      (
        await pool.query(
          `SELECT count(*)::int AS n FROM ${schema}.deliveries
            WHERE leased = 1 AND lease_token = 1 AND substr(id, 2)::int BETWEEN $1 AND $2`,
          [from, to],
        )
      ).rows[0]?.n,
    );
  const rename = (from: string, to: string) => pool.query(`ALTER TABLE ${schema}.${from} RENAME TO ${to}`);
  const drop = () => pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  return { first, second, leased, stillFirstLeased, rename, drop };
}

describe.skipIf(!available)('postgres store: claims held ahead', () => {
  it('holds rows ahead only once a claim came back full, and another worker cannot take them', async () => {
    const { first, second, leased, drop } = await twoWorkers('ahead', 60);
    try {
      expect(await first.claim(request(4))).toHaveLength(4);
      expect(await leased()).toBe(4);
      // The first claim was full: the queue is deep, the next one claims ahead.
      const next = await first.claim(request(4));
      expect(next.map((claim) => claim.id)).toEqual(['d4', 'd5', 'd6', 'd7']);
      expect(await leased()).toBe(8 + CLAIM_AHEAD_ROWS);
      // Held rows come from memory, oldest first, without a statement taking more.
      expect((await first.claim(request(3))).map((claim) => claim.id)).toEqual(['d8', 'd9', 'd10']);
      expect(await leased()).toBe(8 + CLAIM_AHEAD_ROWS);
      const others = await second.claim(request(100, { holdMs: 0 }));
      expect(others).toHaveLength(60 - 8 - CLAIM_AHEAD_ROWS);
      expect(others.every((claim) => claim.lostLeases === 0)).toBe(true);
    } finally {
      await drop();
    }
  });

  it('gives held rows back when the engine stops claiming: due again at once, no lost lease', async () => {
    const { first, second, leased, drop } = await twoWorkers('aheadstop', 50);
    try {
      await first.claim(request(2));
      await first.claim(request(2));
      expect(await leased()).toBe(4 + CLAIM_AHEAD_ROWS);
      await first.releaseHeld?.();
      expect(await leased()).toBe(4);
      const rest = await second.claim(request(100, { holdMs: 0 }));
      expect(rest).toHaveLength(46);
      expect(rest.every((claim) => claim.lostLeases === 0)).toBe(true);
    } finally {
      await drop();
    }
  });

  it('never hands out a row held longer than holdMs: it is given back unsent', async () => {
    const { first, stillFirstLeased, drop } = await twoWorkers('aheadstale', 50);
    const heldFrom = 4;
    const heldTo = 4 + CLAIM_AHEAD_ROWS - 1;
    try {
      await first.claim(request(2, { holdMs: 50 }));
      expect((await first.claim(request(2, { holdMs: 50 }))).map((claim) => claim.id)).toEqual(['d2', 'd3']);
      expect(await stillFirstLeased(heldFrom, heldTo)).toBe(CLAIM_AHEAD_ROWS);
      await new Promise((resolve) => setTimeout(resolve, 80));
      // Older than holdMs: each held row is released; one claimed again carries a new lease.
      const fresh = await first.claim(request(2, { holdMs: 50 }));
      expect(fresh).toHaveLength(2);
      for (const claim of fresh) {
        expect(claim.lostLeases, claim.id).toBe(0);
        const index = Number(claim.id.slice(1));
        if (index >= heldFrom && index <= heldTo) expect(claim.token, claim.id).toBe(2);
      }
      await expect.poll(() => stillFirstLeased(heldFrom, heldTo)).toBe(0);
    } finally {
      await drop();
    }
  });

  it('hands out what it holds when the claim for more fails, and reports the failure once it holds nothing', async () => {
    const { first, rename, drop } = await twoWorkers('aheadfail', 40);
    try {
      await first.claim(request(2));
      await first.claim(request(2));
      // 32 held; the table renamed away makes every claim statement fail.
      await rename('deliveries', 'deliveries_away');
      const handed = await first.claim(request(40));
      expect(handed).toHaveLength(CLAIM_AHEAD_ROWS);
      await expect(first.claim(request(1))).rejects.toMatchObject({ code: 'store_error' });
    } finally {
      await drop();
    }
  });

  it('hands held rows out only within their origin’s room', async () => {
    const { first, drop } = await twoWorkers('aheadroom', 40, (i) => `https://${i % 2 === 0 ? 'a' : 'b'}.example`);
    try {
      await first.claim(request(2, { maxPerOrigin: 2 }));
      const handed = await first.claim(request(4, { maxPerOrigin: 2, busyOrigins: [['https://a.example', 2]] }));
      expect(handed.map((claim) => claim.origin)).toEqual(['https://b.example', 'https://b.example']);
      const busyB = await first.claim(
        request(4, {
          maxPerOrigin: 2,
          busyOrigins: [['https://b.example', 2]],
          excludeOrigins: ['https://b.example'],
        }),
      );
      expect(busyB.map((claim) => claim.origin)).toEqual(['https://a.example', 'https://a.example']);
    } finally {
      await drop();
    }
  });

  it('an engine that stops with rows held leaves none leased, and the next engine sends each once, none counted lost', async () => {
    const schema = uniqueSchema('aheadengine');
    const pool = newPool({ max: 6 });
    const receiver = await startReceiver(() => ({ status: 200, delayMs: 20 }));
    const store = postgresDeliveryStore({ sealingKeys: TEST_SEALING_KEYS, pool, schema });
    const options = await loopbackOptions();
    const engine = (concurrency: number) =>
      createDeliveryEngine({ store, ...options, concurrency, perEndpointConcurrency: concurrency, telemetry: false });
    const firstEngine = engine(4);
    try {
      await store.migrate();
      const ids: string[] = [];
      for (let i = 0; i < 120; i++)
        ids.push((await firstEngine.enqueue({ url: receiver.url, body: bodyFor(`e${i}`) })).id);
      await firstEngine.start();
      await receiver.waitFor(12);
      await firstEngine.stop();
      const leased = await pool.query(`SELECT count(*)::int AS n FROM ${schema}.deliveries WHERE leased = 1`);
      expect(leased.rows[0]?.n).toBe(0);
      const secondEngine = engine(16);
      await secondEngine.start();
      await receiver.waitFor(120);
      await secondEngine.stop();
      for (const id of ids) {
        expect(receiver.counts.get(id), id).toBe(1);
        const record = await secondEngine.getDelivery(id);
        expect(record?.state, id).toBe('delivered');
        expect(
          record?.attemptLog.map((entry) => entry.unrecordedSends),
          id,
        ).toEqual([0]);
      }
    } finally {
      await receiver.close();
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    }
  });
});
