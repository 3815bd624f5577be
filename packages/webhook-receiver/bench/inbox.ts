import { loadavg } from 'node:os';
import { postgresCpuUs } from '@kyc/test-support/process-cpu';
import autocannon from 'autocannon';
import { pgInbox } from '../src/inbox-pg.js';
import { createWebhookReceiver } from '../src/index.js';
import type { ReceiverInput } from '../src/receiver/types.js';
import { startBenchServer } from './bench-server.js';
import { AUTH_KEY } from './fixtures.js';
import { ACTIVATE, benchPool, nextEvent, prepareInboxDatabase } from './inbox-db.js';
import { median } from './median.js';
import { recordTarget, spread } from './targets.js';

// Every request is a Postgres transaction; 2 000 per run (about a second) left the rounds of one
// line 30 % apart on a quiet machine.
const REQUESTS = Number(process.env.KYC_BENCH_INBOX_REQUESTS ?? 5_000);
const WARMUP = Math.max(100, Math.floor(REQUESTS / 5));
// The bar is read over three interleaved rounds; KYC_BENCH_INBOX_ROUNDS (or KYC_BENCH_ROUNDS) changes it.
const ROUNDS = Number(process.env.KYC_BENCH_INBOX_ROUNDS ?? process.env.KYC_BENCH_ROUNDS ?? 3);
const IN_FLIGHT = 16;

interface Run {
  readonly rps: number;
  /** CPU µs per request of the Node process serving it. */
  readonly cpuUs: number;
  /** CPU µs per request of every process of the local Postgres server (in-process lines; 0 elsewhere). */
  readonly postgresUs: number;
}

/** `count` calls of `work`, `IN_FLIGHT` at a time, in this process: rate and CPU per call. */
async function inProcess(work: () => Promise<void>, count: number): Promise<Run> {
  let left = count;
  const worker = async () => {
    while (left-- > 0) await work();
  };
  const cpu = process.cpuUsage();
  const postgres = postgresCpuUs();
  const start = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  return {
    rps: count / seconds,
    cpuUs: (used.user + used.system) / count,
    postgresUs: (postgresCpuUs() - postgres) / count,
  };
}

/** A delivery as an adapter describes it to `receiver.receive`, without HTTP. */
function input(): ReceiverInput {
  const { id, body } = nextEvent();
  const headers: Record<string, string> = {
    authorization: `Bearer ${AUTH_KEY}`,
    'content-type': 'application/json',
    'webhook-id': id,
  };
  const bytes = new TextEncoder().encode(body);
  return { method: 'POST', header: (name) => headers[name], readBody: async () => bytes };
}

/**
 * How long each HTTP line is driven. A fixed amount of requests made autocannon stop on its
 * one-second tick, so every rate came out as the amount over a whole number of seconds (664 or
 * 994 req/s, whichever the server): a fixed duration, divided into the requests answered, is not.
 */
const HTTP_SECONDS = Number(process.env.KYC_BENCH_INBOX_SECONDS ?? 3);

/** Autocannon against a server of inbox-servers.ts, each request a new event (its own body). */
async function overHttp(kind: string): Promise<Run> {
  const server = await startBenchServer(kind);
  const drive = async (length: { readonly amount: number } | { readonly duration: number }) => {
    const result = await autocannon({
      url: `http://127.0.0.1:${server.port}/webhooks/kyc`,
      connections: IN_FLIGHT,
      ...length,
      requests: [
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${AUTH_KEY}` },
          setupRequest: (request) => {
            const { id, body } = nextEvent();
            return { ...request, body, headers: { ...request.headers, 'webhook-id': id } };
          },
        },
      ],
    });
    const bad = result.non2xx + result.errors + result.timeouts;
    if (bad > 0) throw new Error(`${kind}: ${bad} requests were not answered 200`);
    return result.requests.total;
  };
  try {
    await drive({ amount: WARMUP });
    await server.mark();
    const start = performance.now();
    const answered = await drive({ duration: HTTP_SECONDS });
    const rps = answered / ((performance.now() - start) / 1000);
    return { rps, cpuUs: (await server.report()).cpuUs, postgresUs: 0 };
  } finally {
    await server.close();
  }
}

const load = () =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(', ');

const range = (values: readonly number[], digits: number) =>
  `${median(values).toFixed(digits)} [${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}]`;

/**
 * The inbox's cost on Postgres (a fresh schema, `kyc_bench_inbox`). In this process: the receiver
 * in inbox mode (`receive`, no HTTP) with one UPDATE in `context.tx`, against that handler's own
 * transaction alone (BEGIN; UPDATE; COMMIT through pg). Over HTTP, servers in child processes:
 * the receiver's inbox behind node:http against Express with the hand-written recipe.
 */
export async function runInbox(): Promise<void> {
  console.log(
    `\n## Inbox on Postgres (${REQUESTS} requests per in-process run, ${HTTP_SECONDS} s per HTTP run, after ${WARMUP}, ${IN_FLIGHT} in flight, ` +
      `${ROUNDS} interleaved rounds; CPU = the Node process's; Postgres = every process of the local server, ` +
      `in-process lines only; load average ${load()})`,
  );
  try {
    await prepareInboxDatabase();
  } catch (error) {
    console.log(`skipped: Postgres at KYC_TEST_POSTGRES_URL unusable (${(error as Error).message})`);
    return;
  }
  const pool = benchPool(IN_FLIGHT);
  const receiver = createWebhookReceiver({
    authKeys: AUTH_KEY,
    inbox: pgInbox(pool),
    logger: {},
    async onEvent(event, { tx }) {
      await tx.query(ACTIVATE, ['active', event.sessionId]);
    },
  });
  const handlersTransaction = async (sessionId: string) => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(ACTIVATE, ['active', sessionId]);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  };
  // The same receiver without the inbox, its handler running that transaction itself: what the
  // inbox adds is the difference, the receiver's own work (key, parse, answer) being in both.
  const plainReceiver = createWebhookReceiver({
    authKeys: AUTH_KEY,
    logger: {},
    onEvent: (event) => handlersTransaction(event.sessionId),
  });
  const viaReceiver = (which: typeof receiver) => async () => {
    const answer = await which.receive(input());
    if (answer.status !== 200) throw new Error(`receive: answered ${answer.status} ${answer.body}`);
  };
  const inbox = viaReceiver(receiver);
  const plain = viaReceiver(plainReceiver);
  const alone = async () => {
    const { body } = nextEvent();
    await handlersTransaction((JSON.parse(body) as { sessionId: string }).sessionId);
  };
  const lines = {
    inbox: 'receiver in inbox mode (receive, pgInbox), UPDATE in context.tx',
    plain: 'receiver without inbox, handler runs BEGIN; UPDATE; COMMIT',
    alone: 'the handler’s transaction alone (BEGIN; UPDATE; COMMIT via pg)',
    express: 'Express + hand-written inbox recipe (HTTP)',
    http: 'receiver inbox behind node:http (toNodeHandler, pgInbox)',
  } as const;
  type Line = keyof typeof lines;
  const runs: Record<Line, Run[]> = { inbox: [], plain: [], alone: [], express: [], http: [] };
  try {
    await inProcess(inbox, WARMUP);
    await inProcess(plain, WARMUP);
    await inProcess(alone, WARMUP);
    for (let round = 0; round < ROUNDS; round++) {
      runs.inbox.push(await inProcess(inbox, REQUESTS));
      runs.plain.push(await inProcess(plain, REQUESTS));
      runs.alone.push(await inProcess(alone, REQUESTS));
      runs.express.push(await overHttp('inbox-express'));
      runs.http.push(await overHttp('inbox-receiver'));
    }
  } finally {
    await pool.end();
  }
  console.log(`load average at the end of the section: ${load()} (1, 5, 15 min)`);
  console.log(
    `${'line'.padEnd(66)} ${'req/s median [range]'.padEnd(22)} ${'CPU µs/request median [range]'.padEnd(30)} Postgres CPU µs/request`,
  );
  for (const [line, label] of Object.entries(lines) as [Line, string][]) {
    const postgres = runs[line].map((run) => run.postgresUs);
    console.log(
      `${label.padEnd(66)} ${range(
        runs[line].map((run) => run.rps),
        0,
      ).padEnd(22)} ${range(
        runs[line].map((run) => run.cpuUs),
        1,
      ).padEnd(30)} ${postgres.every((us) => us === 0) ? '(not measured over HTTP)' : range(postgres, 0)}`,
    );
  }
  const ratio = (line: Line, base: Line, pick: (run: Run) => number) =>
    runs[line].map((run, round) => pick(run) / pick(runs[base][round] as Run));
  const cpuOf = (line: Line) => `${median(runs[line].map((run) => run.cpuUs)).toFixed(1)} µs`;
  recordTarget({
    measure: 'inbox mode, CPU per request ÷ the handler’s transaction alone (issue 29)',
    ratios: ratio('inbox', 'alone', (run) => run.cpuUs),
    target: 1.3,
    atLeast: false,
    detail: `${cpuOf('inbox')} vs ${cpuOf('alone')}`,
  });
  // The same receiver with the handler's own transaction: the inbox's part alone, without the
  // key check, parse and answer that a receiver does either way.
  recordTarget({
    measure: 'inbox mode, CPU per request ÷ the same receiver whose handler runs its own transaction',
    ratios: ratio('inbox', 'plain', (run) => run.cpuUs),
    target: 1.3,
    atLeast: false,
    detail: `${cpuOf('inbox')} vs ${cpuOf('plain')}`,
  });
  recordTarget({
    measure: 'receiver inbox on node:http, req/s ÷ Express + inbox recipe (issue 29)',
    ratios: ratio('http', 'express', (run) => run.rps),
    target: 1,
    atLeast: true,
    detail: `server CPU ${cpuOf('http')} vs ${cpuOf('express')} (${spread(ratio('http', 'express', (run) => run.cpuUs))})`,
  });
}
