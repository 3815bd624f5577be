import { timingSafeEqual } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createAdaptorServer } from '@hono/node-server';
import { createNodeMiddleware, Webhooks } from '@octokit/webhooks';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { auditTrail } from '../src/audit.js';
import { jsonlAuditSink } from '../src/audit-file.js';
import { kycWebhookPlugin } from '../src/fastify.js';
import { toHonoHandler } from '../src/hono.js';
import { type AuditTrail, createWebhookReceiver, memoryIdempotencyStore } from '../src/index.js';
import { toNodeHandler } from '../src/node.js';
import type { Counters } from './count-hooks.js';
import { AUTH_KEY, GITHUB_SECRET } from './fixtures.js';
import { inboxServer } from './inbox-servers.js';

const PATH = '/webhooks/kyc';
const ANSWER = '{"received":true}';

const receiver = (onEvent: () => unknown = () => undefined, audit?: AuditTrail) =>
  createWebhookReceiver({
    authKeys: AUTH_KEY,
    // The default store (10 000 keys): a bigger one mostly adds garbage-collector work.
    idempotencyStore: memoryIdempotencyStore(),
    onEvent,
    logger: {},
    ...(process.env.KYC_BENCH_TELEMETRY === 'off' ? { telemetry: false } : {}),
    ...(audit === undefined ? {} : { audit }),
  });

/**
 * One benchmark server, run in its own process (bench-server.ts starts it): `bare` reads the body
 * and answers 200; `floor` is what a hand-written endpoint does at the least; `receiver` and
 * `receiver-async` are ours on node:http; `fastify`/`hono` are each framework's own route that
 * reads the body, `fastify-json`/`hono-json` the route that reads and parses it with the framework's
 * own JSON parsing, `fastify-receiver`/`hono-receiver` ours on it (`kycWebhookPlugin`, `toHonoHandler`); `octokit` is Octokit's middleware.
 */
async function serverFor(kind: string): Promise<Server> {
  if (kind === 'bare') {
    return createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        Buffer.concat(chunks);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(ANSWER);
      });
    });
  }
  if (kind === 'floor') {
    // What a hand-written endpoint does at the least: compare the bearer key in constant time,
    // read the body, JSON.parse it.
    const expected = Buffer.from(`Bearer ${AUTH_KEY}`);
    return createServer((request, response) => {
      const given = Buffer.from(request.headers.authorization ?? '');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        response.writeHead(401).end();
        return;
      }
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { sessionId?: unknown };
        response.writeHead(typeof event.sessionId === 'string' ? 200 : 400, { 'content-type': 'application/json' });
        response.end(ANSWER);
      });
    });
  }
  if (kind === 'receiver') return createServer(toNodeHandler(receiver()));
  // A handler that returns a promise: the claim is kept alive and the timeout armed while it runs.
  if (kind === 'receiver-async') return createServer(toNodeHandler(receiver(async () => undefined)));
  // The audit trail's JSON Lines sink, durable per batch (the default), in a fresh directory:
  // profiled against `receiver` (audit off), what an entry costs on the main thread.
  if (kind === 'receiver-audit') {
    const directory = await mkdtemp(join(tmpdir(), 'kyc-bench-audit-'));
    const audit = auditTrail({ sink: jsonlAuditSink({ directory }), timeoutMs: 30_000 });
    return createServer(toNodeHandler(receiver(undefined, audit)));
  }
  if (kind === 'octokit') {
    const webhooks = new Webhooks({ secret: GITHUB_SECRET });
    webhooks.on('push', () => undefined);
    const middleware = createNodeMiddleware(webhooks, {
      path: PATH,
      log: { debug() {}, info() {}, warn() {}, error() {} },
    });
    return createServer((request, response) => void middleware(request, response));
  }
  if (kind === 'fastify' || kind === 'fastify-json' || kind === 'fastify-receiver') {
    let made: Server | undefined;
    const app = Fastify({
      serverFactory: (handler) => {
        made = createServer(handler);
        return made;
      },
    });
    if (kind === 'fastify') {
      // Fastify's own route that reads the body: the raw bytes, as the receiver needs them.
      app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
      app.post(PATH, async (_request, reply) => reply.header('content-type', 'application/json').send(ANSWER));
    } else if (kind === 'fastify-json') {
      // Fastify's own route with its own JSON parser: reads and parses the body, as the floor does.
      app.post(PATH, async (request, reply) =>
        reply.header('content-type', 'application/json').send((request.body as object) ? ANSWER : ''),
      );
    } else await app.register(kycWebhookPlugin, { receiver: receiver(), path: PATH });
    await app.ready();
    if (made === undefined) throw new Error('fastify did not build its server');
    return made;
  }
  if (kind === 'hono' || kind === 'hono-json' || kind === 'hono-receiver') {
    const app = new Hono();
    if (kind === 'hono') {
      // Hono's own route that reads the body: the raw bytes, as the receiver needs them.
      app.post(PATH, async (context) => {
        await context.req.arrayBuffer();
        return context.body(ANSWER, 200, { 'content-type': 'application/json' });
      });
    } else if (kind === 'hono-json') {
      // Hono's own route that reads and parses the body, as the floor does.
      app.post(PATH, async (context) => {
        await context.req.json();
        return context.body(ANSWER, 200, { 'content-type': 'application/json' });
      });
    } else app.all(PATH, toHonoHandler(receiver()));
    return createAdaptorServer({ fetch: app.fetch }) as Server;
  }
  // The inbox section's servers (inbox.ts), on Postgres.
  if (kind.startsWith('inbox-')) return inboxServer(kind);
  throw new Error(`unknown server kind ${kind}`);
}

/*
 * Prints its port, then reads lines on stdin: `mark` ends the warm-up, `report` prints one JSON
 * line (a ServerReport: CPU µs per request since the mark and, when count-hooks.ts is preloaded,
 * what each request created), and stdin closing ends the process. Its own lines start with
 * "@kyc ": node's output (--trace-gc, say) may share stdout.
 */
const say = (line: string) => process.stdout.write(`@kyc ${line}\n`);
const server = await serverFor(process.argv[2] ?? '');
let requests = 0;
server.on('request', () => requests++);
let cpuAtMark = process.cpuUsage();

/** CPU ticks (user + system) of the main thread and of all the others, from /proc (Linux only; zeros elsewhere). */
function threadTicks(): { main: number; others: number } {
  const ticks = { main: 0, others: 0 };
  try {
    for (const task of readdirSync('/proc/self/task')) {
      // Fields after the command name (which may hold blanks): utime and stime are the 12th and 13th.
      const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const used = Number(fields[11]) + Number(fields[12]);
      if (Number(task) === process.pid) ticks.main += used;
      else ticks.others += used;
    }
  } catch {
    // Not Linux: no split.
  }
  return ticks;
}
let ticksAtMark = threadTicks();
const counters = (globalThis as { __kycBenchCounters?: Counters }).__kycBenchCounters;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address !== null && typeof address === 'object') say(String(address.port));
});
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'mark') {
    await counters?.mark();
    requests = 0;
    cpuAtMark = process.cpuUsage();
    ticksAtMark = threadTicks();
    say('marked');
  } else if (line === 'report') {
    const used = process.cpuUsage(cpuAtMark);
    const ticks = threadTicks();
    const counts = await counters?.report(Math.max(1, requests));
    // Clock ticks are 10 ms on Linux: the split is coarse, the total above is exact.
    const perRequest = (value: number) => value / Math.max(1, requests);
    say(
      JSON.stringify({
        requests,
        cpuUs: perRequest(used.user + used.system),
        mainThreadUs: perRequest((ticks.main - ticksAtMark.main) * 10_000),
        otherThreadsUs: perRequest((ticks.others - ticksAtMark.others) * 10_000),
        counts,
      }),
    );
  }
}
server.closeAllConnections();
server.close(() => process.exit(0));
