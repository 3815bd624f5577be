import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listDeliveriesSql, type PortalListQuery, type PortalState } from './list-deliveries-sql.js';
import { type PortalDeliveryRow, PortalStore } from './portal-store.js';

const STATES: PortalState[] = ['delivered', 'failed', 'pending', 'delivered', 'not_sent'];
const COMPANY = 1;
let db: Database.Database;
let store: PortalStore;
let all: PortalDeliveryRow[];
// One replay of each company: what it queued is every ninth of that company's deliveries.
const REPLAY = 'replay_company_one_0001';
const OTHER_REPLAY = 'replay_company_two_0001';
const replayed = new Set<string>();

beforeAll(() => {
  db = new Database(':memory:');
  store = new PortalStore(db);
  db.transaction(() => {
    for (let i = 0; i < 600; i++) {
      // Two companies interleaved; several rows share a creation time so the event id breaks ties.
      const companyId = i % 3 === 0 ? 2 : COMPANY;
      const createdAt = 1_700_000_000_000 + Math.floor(i / 4) * 60_000;
      store.insertDelivery({
        eventId: `evt_${String(i).padStart(4, '0')}`,
        companyId,
        sessionId: `sess_${i % 250}`,
        shortKey: i % 7 === 0 ? 'TEST' : `K${i % 250}`,
        kind: 'session',
        url: 'https://receiver.example/hook',
        authKeyHint: undefined,
        state: STATES[i % STATES.length] ?? 'delivered',
        note: undefined,
        createdAt,
        updatedAt: createdAt,
      });
    }
  })();
  const ids = (companyId: number) =>
    (db.prepare('SELECT event_id FROM portal_deliveries WHERE company_id = ?').all(companyId) as { event_id: string }[])
      .map((row) => row.event_id)
      .filter((_id, index) => index % 9 === 0);
  for (const id of ids(COMPANY)) replayed.add(id);
  store.actions.recordReplayed(COMPANY, REPLAY, [...replayed]);
  store.actions.recordReplayed(2, OTHER_REPLAY, ids(2));
  all = db
    .prepare('SELECT event_id FROM portal_deliveries')
    .all()
    .map((row) => store.get(COMPANY, String((row as { event_id: string }).event_id)))
    .filter((row): row is PortalDeliveryRow => row !== undefined);
});
afterAll(() => db.close());

const run = (query: PortalListQuery) => {
  const { sql, args } = listDeliveriesSql(COMPANY, query);
  return (db.prepare(sql).all(...args) as { event_id: string }[]).map((row) => row.event_id);
};
const plan = (query: PortalListQuery) => {
  const { sql, args } = listDeliveriesSql(COMPANY, query);
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail).join('; ');
};

/** The same page computed the slow, obvious way. */
function expected(query: PortalListQuery): string[] {
  const newestFirst = (a: PortalDeliveryRow, b: PortalDeliveryRow) =>
    b.createdAt - a.createdAt || (a.eventId < b.eventId ? 1 : -1);
  const position = query.before ?? query.after;
  const compare = (row: PortalDeliveryRow) =>
    position ? row.createdAt - position.createdAt || row.eventId.localeCompare(position.eventId) : 0;
  const rows = all
    .filter((row) => !query.state || row.state === query.state)
    .filter((row) => query.replay === undefined || replayed.has(row.eventId))
    .filter((row) => !query.session || row.sessionId === query.session || row.shortKey === query.session)
    .filter((row) => query.from === undefined || row.createdAt >= query.from)
    .filter((row) => query.to === undefined || row.createdAt < query.to)
    .filter((row) => !query.after || compare(row) < 0)
    .filter((row) => !query.before || compare(row) > 0)
    .sort(newestFirst);
  const page = query.before ? rows.reverse() : rows;
  return page.slice(0, query.limit + 1).map((row) => row.eventId);
}

describe('listDeliveriesSql', () => {
  const middle = { createdAt: 1_700_000_000_000 + 70 * 60_000, eventId: 'evt_0281' };
  const queries: [string, PortalListQuery][] = [
    ['first page', { limit: 50 }],
    ['status', { limit: 50, state: 'failed' }],
    ['session id', { limit: 50, session: 'sess_31' }],
    ['short key shared by many rows', { limit: 20, session: 'TEST' }],
    ['session and status', { limit: 50, session: 'TEST', state: 'delivered' }],
    ['date range', { limit: 50, from: middle.createdAt - 600_000, to: middle.createdAt + 600_000 }],
    ['next page', { limit: 50, after: middle }],
    ['previous page', { limit: 50, before: middle }],
    ['status, next page', { limit: 10, state: 'pending', after: middle }],
    ['session, next page', { limit: 5, session: 'TEST', after: middle }],
    ['session, previous page', { limit: 5, session: 'TEST', before: middle }],
    ['a replay', { limit: 50, replay: REPLAY }],
    ['a replay, next page', { limit: 10, replay: REPLAY, after: middle }],
    ['a replay, previous page', { limit: 10, replay: REPLAY, before: middle }],
    ['a replay and a status', { limit: 50, replay: REPLAY, state: 'failed' }],
    ['a replay and a short key', { limit: 50, replay: REPLAY, session: 'TEST' }],
  ];

  it.each(queries)('returns the right page: %s', (_name, query) => {
    expect(run(query)).toEqual(expected(query));
    expect(run(query).length).toBeGreaterThan(0);
  });

  it('reads the first page, a status and a date range from an index in page order (no sort, no scan)', () => {
    for (const query of [{ limit: 50 }, { limit: 50, after: middle }, { limit: 50, from: 0, to: 1 }]) {
      expect(plan(query)).toMatch(/^SEARCH portal_deliveries USING INDEX portal_deliveries_company /);
    }
    expect(plan({ limit: 50, state: 'failed', after: middle })).toMatch(
      /^SEARCH portal_deliveries USING INDEX portal_deliveries_state \(company_id=\? AND state=\? AND/,
    );
    for (const query of queries.map(([, q]) => q).filter((q) => !q.session && !q.replay)) {
      expect(plan(query)).not.toMatch(/SCAN|TEMP B-TREE/);
    }
  });

  it('looks a session up by its id and short-key indexes, not by walking the company’s log', () => {
    for (const query of queries.map(([, q]) => q).filter((q) => q.session && !q.replay)) {
      const detail = plan(query);
      expect(detail).toContain('USING INDEX portal_deliveries_session (company_id=? AND session_id=?)');
      expect(detail).toContain('USING INDEX portal_deliveries_short_key (company_id=? AND short_key=?)');
      expect(detail).not.toContain('portal_deliveries_company');
      expect(detail).not.toMatch(/SCAN portal_deliveries/);
    }
  });

  it('reads a replay through its own rows, and never another company’s', () => {
    for (const query of queries.map(([, q]) => q).filter((q) => q.replay)) {
      const detail = plan(query);
      expect(detail).toContain('SEARCH r USING PRIMARY KEY (company_id=? AND idempotency_key=?)');
      expect(detail).not.toMatch(/SCAN (d|portal_deliveries)\b/);
    }
    expect(run({ limit: 50, replay: OTHER_REPLAY })).toEqual([]);
    expect(run({ limit: 50, replay: 'replay_nobody_made_00001' })).toEqual([]);
  });
});
