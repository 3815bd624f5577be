/**
 * Client overhead per call against what a user would pick instead, all calling the same
 * loopback node:http server in the same run: a bare fetch, ky alone (bare, and with its
 * defaults: 2 retries, 10 s timeout), Onfido's official SDK (`@onfido/api`, axios), and the
 * client with and without tracing. Then the bundle sizes. Three runs, each of interleaved
 * rounds; every ratio is against a baseline of the same run, printed with the spread of the
 * three. Bounded: fixed warm-up, runs and rounds, then the server closes.
 * Run: `pnpm --filter @kyc/client bench` (under `flock /tmp/kyc-bench.lock` on a shared machine);
 * `bench/run.mjs` bundles this file with esbuild first, so the client runs as users run it
 * (built, names not kept), not under tsx.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HEADERS, JSON_CONTENT_TYPE, sampleSessionDetails, sessionDetailsUrl } from '@kyc/contracts';
import { sessionDetailsMiniSchema } from '@kyc/contracts/service-api';
import { Configuration, DefaultApi } from '@onfido/api';
import ky from 'ky';
import { DEFAULT_DEADLINE_MS, DEFAULT_TIMEOUT_MS } from '../src/client-options.js';
import { KycClient } from '../src/index.js';
import { DEFAULT_MAX_RETRIES } from '../src/retry-policy.js';
import { benchHeader } from './bench-header.js';
import { describeBundles } from './describe-bundles.js';

const WARMUP_CALLS = 2000;
const RUNS = 3;
const ROUNDS = 10;
// 1 000 calls (~0.1–0.3 s) per round: long enough that a GC pause or a neighbour's burst is a
// small part of one sample (200 gave ratios spreading 1.0–2.2× between runs).
const CALLS_PER_ROUND = 1000;
const SESSION = sampleSessionDetails.id;
const BODY = JSON.stringify(sampleSessionDetails);

// Every path gets the same 200 and JSON body, so each SDK calls its own route and gets one answer.
const server = createServer((_request, response) => {
  response.writeHead(200, { [HEADERS.contentType]: JSON_CONTENT_TYPE, [HEADERS.requestId]: 'req-bench' });
  response.end(BODY);
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const url = sessionDetailsUrl(baseUrl, SESSION);
const authorization = `Basic ${btoa('bench:bench-password')}`;
const options = { baseUrl, username: 'bench', password: 'bench-password' };
const client = new KycClient(options);
const untraced = new KycClient({ ...options, telemetry: false });
const onfido = new DefaultApi(new Configuration({ apiToken: 'bench-token', basePath: baseUrl }));

// ky running the retries and both timers itself (2 retries on GET and POST, attempt timeout,
// deadline, no redirects) plus the zod/mini parse the client does: how the client used ky until
// its attempts became its own loop. It costs every call, failed or not (a clone of the request
// per attempt, a deadline timer), which is why the client no longer asks ky for it.
const kyAsClient = ky.create({
  timeout: DEFAULT_TIMEOUT_MS,
  totalTimeout: DEFAULT_DEADLINE_MS,
  retry: { limit: DEFAULT_MAX_RETRIES, methods: ['get', 'post'] },
  redirect: 'manual',
});

type Variant = { name: string; call: () => Promise<unknown> };
const FETCH = 'bare fetch + JSON.parse';
const KY = 'ky + JSON.parse (retry 0, no timeout)';
const variants: Variant[] = [
  { name: FETCH, call: async () => JSON.parse(await (await fetch(url, { headers: { authorization } })).text()) },
  {
    name: KY,
    call: async () =>
      JSON.parse(await (await ky(url, { headers: { authorization }, retry: 0, timeout: false })).text()),
  },
  // ky's defaults are 2 retries and a 10 s timeout: what a team using ky without us would run.
  { name: 'ky + JSON.parse (ky defaults)', call: async () => (await ky(url, { headers: { authorization } })).json() },
  {
    name: 'ky, its retries + timers, + zod/mini parse',
    call: async () =>
      sessionDetailsMiniSchema.parse(JSON.parse(await (await kyAsClient(url, { headers: { authorization } })).text())),
  },
  // Onfido's SDK parses JSON but validates nothing; it has no route of ours, so it reads a workflow run.
  { name: '@onfido/api findWorkflowRun (axios)', call: () => onfido.findWorkflowRun(SESSION) },
  { name: 'KycClient.getSession, telemetry: false', call: () => untraced.getSession(SESSION) },
  { name: 'KycClient.getSession (tracing on, no SDK)', call: () => client.getSession(SESSION) },
];

interface Sample {
  wallUs: number;
  cpuUs: number;
}

/** µs per call, wall clock and process CPU (client + server share one process, alike for all variants). */
async function measure(variant: Variant, calls: number): Promise<Sample> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let index = 0; index < calls; index += 1) await variant.call();
  const { user, system } = process.cpuUsage(cpu);
  return { wallUs: ((performance.now() - started) * 1000) / calls, cpuUs: (user + system) / calls };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** One run: interleaved rounds (drift on a shared machine hits every variant alike), median per variant. */
async function run(): Promise<Map<string, Sample>> {
  const samples = new Map<string, Sample[]>(variants.map((variant) => [variant.name, []]));
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const variant of variants) samples.get(variant.name)?.push(await measure(variant, CALLS_PER_ROUND));
  }
  const medians = new Map<string, Sample>();
  for (const [name, list] of samples) {
    medians.set(name, { wallUs: median(list.map((s) => s.wallUs)), cpuUs: median(list.map((s) => s.cpuUs)) });
  }
  return medians;
}

for (const variant of variants) await measure(variant, WARMUP_CALLS);
const runs: Map<string, Sample>[] = [];
for (let index = 0; index < RUNS; index += 1) runs.push(await run());
server.closeAllConnections();
server.close();

const value = (runResult: Map<string, Sample>, name: string, key: keyof Sample) =>
  runResult.get(name)?.[key] ?? Number.NaN;
/** "median× (min–max)" of a ratio over the runs, each run against its own baseline. */
function ratio(name: string, baseline: string, key: keyof Sample): string {
  const ratios = runs.map((r) => value(r, name, key) / value(r, baseline, key));
  return `${median(ratios).toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`;
}

console.log(benchHeader());
console.log(
  `client overhead per call: sequential GETs on loopback, one server, ${RUNS} runs × ${ROUNDS} rounds × ${CALLS_PER_ROUND} calls;`,
);
console.log(`each figure: median of the runs, and in brackets the spread (min–max) of the ${RUNS} runs`);
const cells = (name: string) => [
  median(runs.map((r) => value(r, name, 'wallUs'))).toFixed(1),
  ratio(name, FETCH, 'wallUs'),
  ratio(name, KY, 'wallUs'),
  median(runs.map((r) => value(r, name, 'cpuUs'))).toFixed(1),
  ratio(name, FETCH, 'cpuUs'),
  ratio(name, KY, 'cpuUs'),
];
const header = ['wall µs', 'wall ÷ fetch', 'wall ÷ ky', 'CPU µs', 'CPU ÷ fetch', 'CPU ÷ ky'];
const widths = [8, 18, 18, 8, 18, 18];
const row = (first: string, rest: string[]) =>
  `  ${first.padEnd(44)} ${rest.map((cell, index) => cell.padStart(widths[index] ?? 8)).join(' ')}`;
console.log(row('variant', header));
for (const { name } of variants) console.log(row(name, cells(name)));
console.log('  targets (issue 15): KycClient ≤ 1.10× ky alone (retry 0, no timeout), and below @onfido/api');

for (const line of await describeBundles()) console.log(line);
