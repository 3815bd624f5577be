import { sampleStatusWebhook } from '@kyc/contracts';
import { POSTGRES_URL, postgresAvailable } from '@kyc/test-support';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { numberPlaceholders } from '../src/inbox/placeholders.js';
import { migrateInbox } from '../src/inbox.js';
import { type PgClientLike, pgInbox } from '../src/inbox-pg.js';
import { createWebhookReceiver } from '../src/index.js';
import { createTestRequest } from '../src/testing.js';
import { inboxConformanceSuite } from './support/inbox-conformance.js';

const available = await postgresAvailable();

describe.skipIf(!available)('pg inbox (real Postgres)', () => {
  inboxConformanceSuite('pg', 'postgres', async () => {
    const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 20 });
    return {
      dialect: 'postgres',
      make: (options) => pgInbox(pool, options),
      exec: async (tx, sql, params) => {
        await tx.query(numberPlaceholders(sql), [...params]);
      },
      read: async (sql) => (await pool.query(sql)).rows,
      close: () => pool.end(),
    };
  });
});

// A pg-compatible client that is not node-postgres's own (no wire to batch on): BEGIN and the
// inbox's statement go one after the other, with the same outcomes.
describe.skipIf(!available)('pg inbox over a pg-compatible client (real Postgres)', () => {
  inboxConformanceSuite('pg-compatible', 'postgres', async () => {
    const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 20 });
    const compatible = {
      connect: async (): Promise<PgClientLike> => {
        const client = await pool.connect();
        return { query: (text, params) => client.query(text, params), release: (destroy) => client.release(destroy) };
      },
    };
    return {
      dialect: 'postgres',
      make: (options) => pgInbox(compatible, options),
      exec: async (tx, sql, params) => {
        await tx.query(numberPlaceholders(sql), [...params]);
      },
      read: async (sql) => (await pool.query(sql)).rows,
      close: () => pool.end(),
    };
  });
});

describe.skipIf(!available)('pg inbox round trips (real Postgres)', () => {
  const table = `kyc_inbox_trips_${process.pid}`;
  const key = 'kyc_inbox_round_trip_key_0123';
  const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 4 });
  // Each ReadyForQuery the server sends ends one round trip: counted per client, on the wire.
  let trips = 0;
  const counted = new WeakSet<object>();
  const counting = {
    connect: async () => {
      const client = await pool.connect();
      const wire = (client as unknown as { connection: { on(event: string, listener: () => void): void } }).connection;
      if (!counted.has(client)) {
        counted.add(client);
        wire.on('readyForQuery', () => trips++);
      }
      return client;
    },
  };
  const receiver = createWebhookReceiver({
    authKeys: key,
    inbox: pgInbox(counting, { table }),
    logger: {},
    onEvent: async (_event, { tx }) => {
      await tx.query('SELECT 1');
    },
  });
  const send = async (webhookId: string, timestamp: string) => {
    const payload = { ...sampleStatusWebhook, sessionId: `sess_trips_${process.pid}`, timestamp };
    const before = trips;
    const response = await receiver.handle(createTestRequest({ payload, authKey: key, webhookId }));
    return { status: response.status, body: await response.text(), trips: trips - before };
  };

  beforeAll(() => migrateInbox(pgInbox(pool, { table })));
  afterAll(async () => {
    for (const name of [table, `${table}_sessions`]) await pool.query(`DROP TABLE IF EXISTS ${name}`);
    await pool.end();
  });

  it('adds no round trip to the handler’s own transaction (BEGIN and the inbox’s statement share one)', async () => {
    // BEGIN + open, the handler's SELECT, COMMIT: as many as BEGIN; SELECT; COMMIT alone.
    expect(await send('evt_trips_1', '2026-11-21T10:00:00.000Z')).toMatchObject({ status: 200, trips: 3 });
    // A newer result of the same session: still one statement for the key and the session.
    expect(await send('evt_trips_2', '2026-11-21T11:00:00.000Z')).toMatchObject({ status: 200, trips: 3 });
    // A duplicate: BEGIN + open, ROLLBACK.
    expect(await send('evt_trips_2', '2026-11-21T11:00:00.000Z')).toMatchObject({ status: 200, trips: 2 });
    // A stale result: BEGIN + open, the newer result read under its lock, COMMIT of the key.
    const stale = await send('evt_trips_3', '2026-11-21T09:00:00.000Z');
    expect(stale).toMatchObject({ status: 200, trips: 3 });
    expect(JSON.parse(stale.body)).toMatchObject({ stale: true });
  });
});

describe.skipIf(!available)('pg inbox prepared opening statement (real Postgres)', () => {
  const table = `kyc_inbox_prepared_${process.pid}`;
  const key = 'kyc_inbox_prepared_statement_key_01';
  const pools: pg.Pool[] = [];
  let counter = 0;
  beforeAll(async () => {
    const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 1 });
    pools.push(pool);
    await migrateInbox(pgInbox(pool, { table }));
  });
  afterAll(async () => {
    for (const name of [table, `${table}_sessions`]) await pools[0]?.query(`DROP TABLE IF EXISTS ${name}`);
    await Promise.all(pools.map((pool) => pool.end()));
  });

  /** A receiver over a one-connection pool; `handler` runs in each delivery's transaction. */
  function receiverOn(options: { preparedStatements?: boolean }, handler = async (_tx: PgClientLike) => {}) {
    const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 1 });
    pools.push(pool);
    const receiver = createWebhookReceiver({
      authKeys: key,
      inbox: pgInbox(pool, { table, ...options }),
      logger: {},
      onEvent: (_event, { tx }) => handler(tx),
    });
    const send = async () => {
      const n = counter++;
      const payload = { ...sampleStatusWebhook, sessionId: `sess_prepared_${process.pid}_${n}` };
      const response = await receiver.handle(createTestRequest({ payload, authKey: key, webhookId: `evt_prep_${n}` }));
      return response.status;
    };
    /** The connection's prepared statements that belong to the inbox, as the server lists them. */
    const inboxStatements = async () =>
      (
        await pool.query<{ name: string; calls: string }>(
          "SELECT name, generic_plans + custom_plans AS calls FROM pg_prepared_statements WHERE name LIKE 'kyc_inbox_%'",
        )
      ).rows;
    return { send, inboxStatements };
  }

  it('prepares the opening statement once per connection and runs it at every delivery', async () => {
    const { send, inboxStatements } = receiverOn({});
    for (let i = 0; i < 4; i++) expect(await send()).toBe(200);
    const statements = await inboxStatements();
    expect(statements).toHaveLength(1);
    expect(Number(statements[0]?.calls)).toBe(4);
  });

  it('goes on unprepared when the server connection lost the statement (a pooler, DEALLOCATE ALL)', async () => {
    let deallocate = false;
    const { send, inboxStatements } = receiverOn({}, async (tx) => {
      if (deallocate) await tx.query('DEALLOCATE ALL');
    });
    expect(await send()).toBe(200);
    deallocate = true;
    expect(await send()).toBe(200);
    deallocate = false;
    // The next delivery finds the statement gone (26000): it is answered 200 all the same, and
    // the inbox stops preparing, so later deliveries neither fail nor prepare it again.
    for (let i = 0; i < 3; i++) expect(await send()).toBe(200);
    expect(await inboxStatements()).toEqual([]);
  });

  it('prepares nothing with preparedStatements: false', async () => {
    const { send, inboxStatements } = receiverOn({ preparedStatements: false });
    for (let i = 0; i < 2; i++) expect(await send()).toBe(200);
    expect(await inboxStatements()).toEqual([]);
  });
});
