import { driveLoad, type ServerReport, startBenchServer } from './bench-server.js';
import { median } from './median.js';
import { recordTarget, spread } from './targets.js';

const SECONDS = Number(process.env.KYC_BENCH_SECONDS ?? 4);
const WARMUP_SECONDS = 1;
// The machine may be shared: servers take turns over several rounds, and every ratio is taken
// within one round, so a burst of load from elsewhere moves both of its figures.
const ROUNDS = Number(process.env.KYC_BENCH_ROUNDS ?? 3);
const CONNECTIONS = 16;

/** Every server of the section, in the order a round runs them (see http-server.ts). */
const KINDS = {
  bare: 'bare node:http (read the body, 200)',
  floor: 'hand-written floor: bearer timingSafeEqual + JSON.parse',
  receiver: 'toNodeHandler, memory store, sync handler',
  'receiver-async': 'toNodeHandler, memory store, async handler',
  octokit: 'Octokit createNodeMiddleware (HMAC)',
  fastify: "Fastify's own route (reads the body)",
  'fastify-json': "Fastify's own route (reads + parses the JSON body)",
  'fastify-receiver': 'kycWebhookPlugin on Fastify',
  hono: "Hono's own route on @hono/node-server (reads the body)",
  'hono-json': "Hono's own route (reads + parses the JSON body)",
  'hono-receiver': 'toHonoHandler on Hono',
} as const;
type Kind = keyof typeof KINDS;

interface Run {
  readonly rps: number;
  readonly report: ServerReport;
}

async function measure(kind: Kind): Promise<Run> {
  const server = await startBenchServer(kind);
  try {
    await driveLoad(kind, server.port, { seconds: WARMUP_SECONDS, connections: CONNECTIONS });
    await server.mark();
    const { rps } = await driveLoad(kind, server.port, { seconds: SECONDS, connections: CONNECTIONS });
    return { rps, report: await server.report() };
  } finally {
    await server.close();
  }
}

const range = (values: readonly number[], digits: number) =>
  `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;

/**
 * Requests per second and server CPU per request over HTTP (autocannon in this process, each
 * server in its own), every request a new event: ours on node:http beside a bare server and the
 * hand-written floor, Octokit's middleware, and the Fastify and Hono adapters beside each
 * framework's own route. Ratios per round; the targets go to the summary at the end.
 */
export async function runHttp(): Promise<void> {
  console.log(
    `\n## HTTP (autocannon, ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up + ${SECONDS} s measured, ` +
      `${ROUNDS} interleaved rounds; servers in child processes; server CPU = user + system of every thread)`,
  );
  const runs = new Map<Kind, Run[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of Object.keys(KINDS) as Kind[]) {
      const list = runs.get(kind) ?? [];
      list.push(await measure(kind));
      runs.set(kind, list);
    }
  }
  const of = (kind: Kind) => runs.get(kind) ?? [];
  const perRound = (kind: Kind, base: Kind, pick: (run: Run) => number) =>
    of(kind).map((run, round) => pick(run) / pick(of(base)[round] as Run));
  const rps = (run: Run) => run.rps;
  const cpu = (run: Run) => run.report.cpuUs;
  console.log(
    `${'server'.padEnd(58)} ${'req/s median (range)'.padEnd(24)} ${'÷ bare'.padEnd(20)} CPU µs/request median (range)`,
  );
  for (const [kind, label] of Object.entries(KINDS) as [Kind, string][]) {
    console.log(
      `${label.padEnd(58)} ${range(of(kind).map(rps), 0).padEnd(24)} ${spread(perRound(kind, 'bare', rps)).padEnd(20)} ` +
        `${range(of(kind).map(cpu), 1)}`,
    );
  }
  const cpuOf = (kind: Kind) => `${median(of(kind).map(cpu)).toFixed(1)} µs`;
  recordTarget({
    measure: 'toNodeHandler on node:http, req/s ÷ bare',
    ratios: perRound('receiver', 'bare', rps),
    target: 0.66,
    atLeast: true,
    detail: `(floor ${spread(perRound('floor', 'bare', rps))})`,
  });
  recordTarget({
    measure: "toNodeHandler, server CPU per request ÷ the floor's",
    ratios: perRound('receiver', 'floor', cpu),
    target: 1.15,
    atLeast: false,
    detail: `${cpuOf('receiver')} vs ${cpuOf('floor')}; async handler ${spread(perRound('receiver-async', 'floor', cpu))}`,
  });
  // Two readings of "the framework's own route that reads the body": the route that parses the
  // JSON too (what the floor does, and what a webhook route does) is the target's; the one that
  // only reads the bytes is printed beside it.
  for (const [name, reads, parses, ours] of [
    ['Fastify', 'fastify', 'fastify-json', 'fastify-receiver'],
    ['Hono', 'hono', 'hono-json', 'hono-receiver'],
  ] as const) {
    recordTarget({
      measure: `${name} adapter, req/s ÷ its own route (reads + parses JSON)`,
      ratios: perRound(ours, parses, rps),
      target: 0.9,
      atLeast: true,
      detail:
        `CPU ${cpuOf(ours)} vs ${cpuOf(parses)} (${spread(perRound(ours, parses, cpu))}); ` +
        `÷ the route that only reads: req/s ${spread(perRound(ours, reads, rps))}`,
    });
  }
}
