/**
 * Client overhead per call vs a bare fetch to the same loopback node:http server, in the same
 * run, plus the bundle size. Bounded: fixed warm-up and rounds, then the server closes.
 * Run: `pnpm bench` (under `flock /tmp/kyc-bench.lock` on a shared machine).
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HEADERS, JSON_CONTENT_TYPE, sampleSessionDetails, sessionDetailsUrl } from '@kyc/contracts';
import ky from 'ky';
import { KycClient } from '../src/index.js';
import { describeBundles } from './describe-bundles.js';

const WARMUP_CALLS = 500;
const CALLS_PER_ROUND = 400;
const ROUNDS = 20;
const SESSION = sampleSessionDetails.id;
const BODY = JSON.stringify(sampleSessionDetails);

const server = createServer((_request, response) => {
  response.writeHead(200, { [HEADERS.contentType]: JSON_CONTENT_TYPE, [HEADERS.requestId]: 'req-bench' });
  response.end(BODY);
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const url = sessionDetailsUrl(baseUrl, SESSION);
const authorization = `Basic ${btoa('bench:bench-password')}`;
const client = new KycClient({ baseUrl, username: 'bench', password: 'bench-password' });

type Variant = { name: string; call: () => Promise<unknown> };
const variants: Variant[] = [
  {
    name: 'bare fetch + JSON.parse',
    call: async () => JSON.parse(await (await fetch(url, { headers: { authorization } })).text()),
  },
  {
    name: 'ky + JSON.parse (no retries/validation)',
    call: async () =>
      JSON.parse(await (await ky(url, { headers: { authorization }, retry: 0, timeout: false })).text()),
  },
  { name: 'KycClient.getSession', call: () => client.getSession(SESSION) },
];

interface Sample {
  wallUs: number;
  cpuUs: number;
}

/** µs per call, wall clock and process CPU (client + server share one process, alike for all variants). */
async function run(variant: Variant, calls: number): Promise<Sample> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let index = 0; index < calls; index += 1) await variant.call();
  const { user, system } = process.cpuUsage(cpu);
  return { wallUs: ((performance.now() - started) * 1000) / calls, cpuUs: (user + system) / calls };
}

for (const variant of variants) await run(variant, WARMUP_CALLS);
const samples = new Map<string, Sample[]>(variants.map((variant) => [variant.name, []]));
for (let round = 0; round < ROUNDS; round += 1) {
  // Interleaved rounds so drift on a shared machine hits every variant alike.
  for (const variant of variants) samples.get(variant.name)?.push(await run(variant, CALLS_PER_ROUND));
}
server.closeAllConnections();
server.close();

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const medianOf = (name: string | undefined, key: keyof Sample) =>
  median((samples.get(name ?? '') ?? []).map((sample) => sample[key]));
const baseWall = medianOf(variants[0]?.name, 'wallUs');
const baseCpu = medianOf(variants[0]?.name, 'cpuUs');
console.log(`client overhead (sequential GETs on loopback, ${ROUNDS}×${CALLS_PER_ROUND} calls, median per call)`);
console.log(
  `  ${'variant'.padEnd(42)} ${'wall µs'.padStart(8)} ${'ratio'.padStart(7)} ${'CPU µs'.padStart(8)} ${'ratio'.padStart(7)}`,
);
for (const variant of variants) {
  const wall = medianOf(variant.name, 'wallUs');
  const cpu = medianOf(variant.name, 'cpuUs');
  console.log(
    `  ${variant.name.padEnd(42)} ${wall.toFixed(1).padStart(8)} ${`${(wall / baseWall).toFixed(3)}×`.padStart(7)} ${cpu.toFixed(1).padStart(8)} ${`${(cpu / baseCpu).toFixed(3)}×`.padStart(7)}`,
  );
}
console.log('  target: KycClient ≤ 1.15× bare fetch');

for (const line of await describeBundles()) console.log(line);
