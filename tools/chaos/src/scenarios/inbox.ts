import { HEADERS, sampleStatusWebhook } from '@kyc/contracts';
import { MYSQL_URL, POSTGRES_URL } from '@kyc/test-support';
import { migrateInbox } from '@kyc/webhook-receiver/inbox';
import { mysql2Inbox } from '@kyc/webhook-receiver/inbox/mysql2';
import { pgInbox } from '@kyc/webhook-receiver/inbox/pg';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { Agent, request } from 'undici';
import { between } from '../support/between.js';
import { CHAOS_KEY } from '../support/chaos-receiver.js';
import { freePort } from '../support/free-port.js';
import { type SourcePatch, spawnPatchedScript } from '../support/patched-script.js';
import { pause } from '../support/pause.js';
import { Invariants, type RunContext, type Scenario } from '../support/scenario.js';
import { type ChildScript, spawnScript } from '../support/spawn-script.js';

const COPIES = 20;
/**
 * How long one copy is sent again before the run calls it undelivered: the service's own retry
 * schedule spans days, so a copy is given up only when the receivers were unreachable far longer
 * than any kill and restart takes (an attempt budget ran out on a slow machine while the one
 * MariaDB receiver was restarting).
 */
const GIVE_UP_AFTER_MS = 300_000;
/** Each receiver is SIGKILLed on average once per this many ms, whatever their number. */
const KILL_EVERY_MS: readonly [number, number] = [600, 2400];
const FILE = 'inbox/open-event.ts';
// The broken build: the key is committed in a transaction of its own before the handler runs
// (Postgres: the one-round-trip opening; MySQL: the key's INSERT).
const OUTSIDE: readonly SourcePatch[] = [
  {
    file: FILE,
    search: 'opening = await database.beginWith(statements.open, openParams(inbox, event, at));',
    replace:
      'const outside = await database.beginWith(statements.open, openParams(inbox, event, at));\n' +
      '      await outside.transaction.commit();\n' +
      '      opening = { transaction: await database.begin(), result: outside.result };',
  },
  {
    file: FILE,
    search: 'const inserted = await tx.query(statements.insertKey, [',
    replace:
      'const outside = await inbox.database.begin();\n' +
      '  const inserted = await outside.query(statements.insertKey, [',
  },
  {
    file: FILE,
    search: 'if (inserted.affected === 0) return DUPLICATE;',
    replace: 'await outside.commit();\n  if (inserted.affected === 0) return DUPLICATE;',
  },
];

interface Db {
  run(sql: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

async function openDb(dialect: 'postgres' | 'mysql', table: string): Promise<Db> {
  const auto = dialect === 'postgres' ? 'id bigserial PRIMARY KEY' : 'id bigint AUTO_INCREMENT PRIMARY KEY';
  let db: Db;
  if (dialect === 'postgres') {
    const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 2 });
    await migrateInbox(pgInbox(pool, { table }));
    db = { run: async (sql) => (await pool.query(sql)).rows, close: () => pool.end() };
  } else {
    const pool = mysql.createPool({ uri: MYSQL_URL, connectionLimit: 2 });
    await migrateInbox(mysql2Inbox(pool, { table }));
    db = {
      run: async (sql) => {
        const [rows] = await pool.query(sql);
        return Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
      },
      close: () => pool.end(),
    };
  }
  // The business tables carry no unique key on the event: a second effect would show.
  await db.run(
    `CREATE TABLE ${table}_effects (${auto}, event_key varchar(600) NOT NULL, session_id varchar(256) NOT NULL, status varchar(32))`,
  );
  await db.run(`CREATE TABLE ${table}_accounts (session_id varchar(256) PRIMARY KEY, status varchar(32))`);
  return db;
}

/** One database: `receivers` processes, `sessions` sessions of two events each (a PENDING, then a final result). */
async function round(
  context: RunContext,
  invariants: Invariants,
  dialect: 'postgres' | 'mysql',
  receivers: number,
  sessions: number,
): Promise<[string, string | number][]> {
  const name = dialect === 'postgres' ? 'pg' : 'mariadb';
  const table = `kyc_chaos_inbox_${name}_${process.pid}`;
  const db = await openDb(dialect, table);
  const kills = new Map<string, number>();
  const count = (moment: string) => kills.set(moment, (kills.get(moment) ?? 0) + 1);
  const ports = await Promise.all(Array.from({ length: receivers }, () => freePort()));
  const children: (ChildScript | undefined)[] = [];
  const ready = new Set<ChildScript>();
  let running = true;
  const start = async (slot: number): Promise<void> => {
    const config = {
      dialect,
      url: dialect === 'postgres' ? POSTGRES_URL : MYSQL_URL,
      port: ports[slot],
      authKey: CHAOS_KEY,
      table,
      kill: { before: 0.003, inside: 0.1, afterCommit: 0.1 },
    };
    const onLine = (line: string) => line.startsWith('kill ') && count(line.slice(5));
    const child =
      context.breakWith === undefined
        ? spawnScript('inbox-receiver', config, onLine)
        : await spawnPatchedScript('inbox-receiver', config, OUTSIDE, onLine);
    children[slot] = child;
    void child.exited.then(() => {
      ready.delete(child);
      return running ? start(slot) : undefined;
    });
    await child.waitFor('ready').then(
      () => ready.add(child),
      () => undefined,
    );
  };
  await Promise.all(ports.map((_, slot) => start(slot)));
  const killer = (async () => {
    while (running) {
      // The pause shrinks with the number of receivers, so that each is killed as often alone as
      // among four; only a receiver that is serving is killed (one still starting is not a moment
      // of the handler's).
      await pause(between(context.random, KILL_EVERY_MS[0], KILL_EVERY_MS[1]) / receivers);
      const child = children[between(context.random, 0, receivers - 1)];
      if (running && child !== undefined && ready.has(child) && child.child.exitCode === null) {
        count('random');
        child.kill('SIGKILL');
      }
    }
  })();

  const agent = new Agent({ connections: 64, headersTimeout: 15_000, bodyTimeout: 15_000 });
  const answers = { processed: 0, duplicate: 0, stale: 0, retried: 0 };
  const deliver = async (id: string, payload: object) => {
    const giveUpAt = Date.now() + GIVE_UP_AFTER_MS;
    while (Date.now() < giveUpAt) {
      try {
        const port = ports[between(Math.random, 0, receivers - 1)];
        const response = await request(`http://127.0.0.1:${port}/`, {
          method: 'POST',
          dispatcher: agent,
          headers: {
            authorization: `Bearer ${CHAOS_KEY}`,
            [HEADERS.webhookId]: id,
            'content-type': 'application/json',
          },
          body: JSON.stringify(payload),
        });
        const text = await response.body.text();
        if (response.statusCode === 200) {
          const body = JSON.parse(text) as { duplicate?: boolean; stale?: boolean };
          answers[body.duplicate ? 'duplicate' : body.stale ? 'stale' : 'processed']++;
          return;
        }
      } catch {
        // A killed receiver: the sender retries, as the service does.
      }
      answers.retried++;
      await pause(between(Math.random, 30, 150));
    }
    invariants.check(false, `${name}: an event never got its 200`, () => id);
  };
  const started = Date.now();
  const base = Date.parse('2026-11-21T10:00:00.000Z');
  const finals = new Map<string, string>();
  for (let batch = 0; batch < sessions; batch += 10) {
    const work: Promise<void>[] = [];
    for (let s = batch; s < Math.min(sessions, batch + 10); s++) {
      const sessionId = `${table}_s${s}`;
      const final = s % 3 === 0 ? 'REJECTED' : 'APPROVED';
      finals.set(sessionId, final);
      const event = (status: string, minutes: number) => ({
        ...sampleStatusWebhook,
        sessionId,
        status,
        timestamp: new Date(base + minutes * 60_000).toISOString(),
      });
      // The final result goes out first; the older PENDING follows a moment later: out of order.
      for (let c = 0; c < COPIES; c++) work.push(deliver(`${sessionId}-final`, event(final, 30)));
      for (let c = 0; c < COPIES; c++)
        work.push(
          pause(between(context.random, 0, 40)).then(() => deliver(`${sessionId}-pending`, event('PENDING', 0))),
        );
    }
    await Promise.all(work);
    if (batch % 100 === 0) context.progress(`inbox/${name}: ${batch}/${sessions} sessions`);
  }
  running = false;
  await killer;
  for (const child of children) child?.kill('SIGKILL');
  await Promise.all(children.map((child) => child?.exited));
  await agent.close();
  const seconds = (Date.now() - started) / 1000;

  const effects = await db.run(`SELECT id, event_key, session_id, status FROM ${table}_effects ORDER BY id`);
  const accounts = new Map(
    (await db.run(`SELECT session_id, status FROM ${table}_accounts`)).map((r) => [
      String(r.session_id),
      String(r.status),
    ]),
  );
  const keys = new Set(
    (await db.run(`SELECT session_id, status FROM ${table}`)).map((r) => `${r.session_id}/${r.status}`),
  );
  const byEvent = new Map<string, number[]>();
  for (const row of effects)
    byEvent.set(`${row.session_id}/${row.status}`, [
      ...(byEvent.get(`${row.session_id}/${row.status}`) ?? []),
      Number(row.id),
    ]);
  let pendingApplied = 0;
  for (const [sessionId, final] of finals) {
    const finalRuns = byEvent.get(`${sessionId}/${final}`) ?? [];
    const pendingRuns = byEvent.get(`${sessionId}/PENDING`) ?? [];
    invariants.check(
      finalRuns.length === 1,
      `${name}: a final result without exactly one effect`,
      () => `${sessionId}: ${finalRuns.length}`,
    );
    invariants.check(
      pendingRuns.length <= 1,
      `${name}: a PENDING result with more than one effect`,
      () => `${sessionId}: ${pendingRuns.length}`,
    );
    // A PENDING may take effect only when it came first: applied after the final, it downgraded.
    invariants.check(
      (pendingRuns[0] ?? 0) < (finalRuns[0] ?? Number.POSITIVE_INFINITY),
      `${name}: a PENDING applied after the final result`,
      () => sessionId,
    );
    invariants.check(
      accounts.get(sessionId) === final,
      `${name}: an account not at its final status (downgraded or missing)`,
      () => `${sessionId}: ${accounts.get(sessionId)} ≠ ${final}`,
    );
    invariants.check(
      keys.has(`${sessionId}/${final}`) && keys.has(`${sessionId}/PENDING`),
      `${name}: an acknowledged event without its key`,
      () => sessionId,
    );
    pendingApplied += pendingRuns.length;
  }
  const events = sessions * 2;
  const acknowledged = answers.processed + answers.duplicate + answers.stale;
  invariants.check(
    acknowledged === events * COPIES,
    `${name}: copies acknowledged ≠ copies sent`,
    () => `${acknowledged} ≠ ${events * COPIES}`,
  );
  // Every effect was answered "processed" once, unless a kill took that answer (then a copy saw a duplicate).
  invariants.check(
    answers.processed <= effects.length,
    `${name}: more "processed" answers than effects`,
    () => `${answers.processed} > ${effects.length}`,
  );
  for (const t of [`${table}_effects`, `${table}_accounts`, table, `${table}_sessions`])
    await db.run(`DROP TABLE IF EXISTS ${t}`);
  await db.close();
  const killed = [...kills].map(([moment, n]) => `${moment} ${n}`).join(', ');
  return [
    [`${name}: receivers, events × copies`, `${receivers}, ${events} × ${COPIES} (${seconds.toFixed(1)} s)`],
    [`${name}: SIGKILLs`, killed || 'none'],
    [`${name}: effects (finals, early PENDINGs)`, `${effects.length} (${finals.size}, ${pendingApplied})`],
    [
      `${name}: answers processed / duplicate / stale`,
      `${answers.processed} / ${answers.duplicate} / ${answers.stale}`,
    ],
    [`${name}: failed attempts retried`, answers.retried],
  ];
}

export const inbox: Scenario = {
  name: 'inbox',
  title:
    'transactional inbox: 4 receivers over one Postgres and one over MariaDB, 20 concurrent copies per event, late PENDINGs, SIGKILLs before, inside and after the handler',
  breaks: ['inbox-outside-tx'],
  async run(context) {
    const invariants = new Invariants();
    const full = context.mode === 'full';
    const figures = [
      ...(await round(context, invariants, 'postgres', 4, full ? 500 : 100)),
      ...(await round(context, invariants, 'mysql', 1, full ? 500 : 30)),
    ];
    return { figures, failures: invariants.failures };
  },
};
