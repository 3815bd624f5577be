/**
 * `pnpm -C packages/sandbox bench`: the Deliveries page with 100 000 deliveries (issue 12).
 * Seeds one company's log (and a second company's, so scoping is part of every query), starts
 * the sandbox on loopback, logs in through the form and times `GET /dashboard/deliveries` with
 * each filter, as a ratio to the unfiltered first page measured in the same run. Bounded: a
 * fixed number of requests per case. Run under `flock /tmp/kyc-bench.lock` (the script does).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { encodeCursor } from '../src/portal/delivery-query.js';
import { listDeliveriesSql, type PortalListQuery } from '../src/portal/list-deliveries-sql.js';
import { startSandbox } from '../src/start-sandbox.js';
import { benchHeader } from './bench-header.js';
import { seedDeliveries } from './seed-deliveries.js';

const COUNT = Number(process.env.KYC_BENCH_DELIVERIES ?? 100_000);
const SAMPLES = Number(process.env.KYC_BENCH_SAMPLES ?? 60);
const WARMUP = 5;
const PASSWORD = 'bench-password-0123';
const DAYS = 30;

const dir = mkdtempSync(join(tmpdir(), 'kyc-portal-bench-'));
const dbPath = join(dir, 'sandbox.db');
const options = { dataDir: dir, allowLoopbackTargets: true, timeScale: 600 } as const;

// First start: the schema and two users in two companies; then seed with the sandbox stopped.
const first = await startSandbox(options);
await first.sandbox.addUser('alice', PASSWORD, { company: 'Busy Company' });
await first.sandbox.addUser('bob', PASSWORD, { company: 'Other Company' });
await first.close();
const now = Date.now();
const seedStarted = performance.now();
const seeded = seedDeliveries(dbPath, { company: 'Busy Company', count: COUNT, days: DAYS, now, deep: 90_000 % COUNT });
seedDeliveries(dbPath, { company: 'Other Company', count: Math.ceil(COUNT / 10), days: DAYS, now, deep: 0 });
const seedSeconds = (performance.now() - seedStarted) / 1000;

const running = await startSandbox(options);

async function login(username: string): Promise<string> {
  const form = await fetch(`${running.url}/login`);
  const csrfCookie = (form.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const answer = await fetch(`${running.url}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: running.url, cookie: csrfCookie },
    body: new URLSearchParams({ _csrf: token, username, password: PASSWORD }),
  });
  const cookie = answer.headers
    .getSetCookie()
    .find((c) => c.startsWith('kyc_sandbox='))
    ?.split(';')[0];
  if (answer.status !== 303 || !cookie) throw new Error(`login failed with ${answer.status}`);
  return cookie;
}

const cookie = await login('alice');

/** Times `samples` sequential GETs of one page; checks each answered 200 with the expected number of rows. */
async function time(query: string, rows: number | undefined): Promise<{ p50: number; p95: number }> {
  const url = `${running.url}/dashboard/deliveries${query}`;
  const durations: number[] = [];
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    const started = performance.now();
    const answer = await fetch(url, { headers: { cookie } });
    const text = await answer.text();
    const elapsed = performance.now() - started;
    if (answer.status !== 200) throw new Error(`${query} answered ${answer.status}`);
    const found = (text.match(/<tr data-event-id=/g) ?? []).length;
    if (rows !== undefined && found !== rows) throw new Error(`${query} showed ${found} rows, expected ${rows}`);
    if (i >= WARMUP) durations.push(elapsed);
  }
  durations.sort((a, b) => a - b);
  const at = (p: number) => durations[Math.min(durations.length - 1, Math.floor(p * durations.length))] ?? 0;
  return { p50: at(0.5), p95: at(0.95) };
}

// A full page for every filter at the default size; smaller runs (KYC_BENCH_DELIVERIES) skip the row-count check.
const full = COUNT >= 20_000 ? 50 : undefined;
const cases: [name: string, query: string, rows: number | undefined][] = [
  ['first page (baseline)', '', 50],
  ['Status = Failed', '?status=failed', full],
  ['Status = Retrying', '?status=retrying', full],
  ['Session = a session id', `?session=${seeded.sessionId}`, 1],
  ['Session = a short key', `?session=${seeded.shortKey}`, 1],
  ['Session with no match', '?session=NOSUCHKEY', 0],
  ['From/To one day', `?from=${seeded.middleDay}&to=${seeded.middleDay}`, full],
  ['Failed, From/To one day', `?status=failed&from=${seeded.middleDay}&to=${seeded.middleDay}`, full],
  ['Next page 90 000 rows in', `?after=${encodeCursor(seeded.deepRow)}`, full],
  ['Failed, next page 90 000 rows in', `?status=failed&after=${encodeCursor(seeded.deepRow)}`, full],
];

console.log(benchHeader('sandbox portal: Deliveries page'));
console.log(
  `# ${COUNT} deliveries for the logged-in company over ${DAYS} days (80 % delivered, 15 % failed, 5 % retrying), ` +
    `${Math.ceil(COUNT / 10)} for another; seeded in ${seedSeconds.toFixed(1)} s; ` +
    `${SAMPLES} sequential requests per case after ${WARMUP} warm-up, over loopback HTTP with a login cookie`,
);
console.log('| case | p50 ms | p95 ms | p50 ÷ first page |');
console.log('| --- | ---: | ---: | ---: |');
let baseline = 0;
try {
  for (const [name, query, rows] of cases) {
    const { p50, p95 } = await time(query, rows);
    if (baseline === 0) baseline = p50;
    console.log(`| ${name} | ${p50.toFixed(2)} | ${p95.toFixed(2)} | ${(p50 / baseline).toFixed(2)}× |`);
  }
} finally {
  await running.close();
}

// The plans say why: every filter reads through an index in page order, or (Session) looks
// its few rows up by the session and short-key indexes.
const db = new Database(dbPath, { readonly: true });
const busy = (db.prepare('SELECT id FROM companies WHERE name = ?').get('Busy Company') as { id: number }).id;
const plan = (query: PortalListQuery) => {
  const { sql, args } = listDeliveriesSql(busy, query);
  const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[];
  return rows.map((row) => row.detail).join('; ');
};
console.log('\n# query plans');
console.log(`- first page: ${plan({ limit: 50 })}`);
console.log(`- Status: ${plan({ limit: 50, state: 'failed' })}`);
console.log(`- Session: ${plan({ limit: 50, session: seeded.shortKey })}`);
console.log(`- From/To: ${plan({ limit: 50, from: now - 86_400_000, to: now })}`);
console.log(`- Failed, next page: ${plan({ limit: 50, state: 'failed', after: seeded.deepRow })}`);
db.close();
rmSync(dir, { recursive: true, force: true });
