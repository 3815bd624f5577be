import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { AUTH_KEY, bodies, githubSignature } from './fixtures.js';

const DURATION_S = 4;
// The machine is shared: servers take turns over several rounds and the median counts.
const ROUNDS = 3;
const CONNECTIONS = 16;
/** The target: requests/s through toNodeHandler as a share of the bare server's. */
const TARGET = 0.66;

async function startServer(kind: string): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    // Bundled next to this file by bench/run.mjs.
    [fileURLToPath(new URL('./http-server.mjs', import.meta.url)), kind],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.once('data', (data: Buffer) => resolve(Number(String(data).trim())));
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
  return { port, child };
}

interface LoadResult {
  readonly rps: number;
  /** Server CPU time (user + system) per request, in µs. */
  readonly cpuUs: number;
}

async function load(kind: string, headers: Record<string, string>, body: string): Promise<LoadResult> {
  const { port, child } = await startServer(kind);
  let counter = 0;
  try {
    const result = await autocannon({
      url: `http://127.0.0.1:${port}/webhooks/kyc`,
      connections: CONNECTIONS,
      duration: DURATION_S,
      requests: [
        {
          method: 'POST',
          body,
          headers,
          // A new Webhook-Id per request, so every request is a new event for the receiver (claim + run +
          // complete). The others ignore it, but get it too: the load generator then does the same work
          // for every server, which matters on a machine with two cores.
          setupRequest: (request) => ({
            ...request,
            headers: { ...request.headers, 'webhook-id': `evt_${counter++}` },
          }),
        },
      ],
    });
    const bad = result.non2xx + result.errors + result.timeouts;
    if (bad > 0) console.warn(`  ${kind}: ${bad} non-2xx/errors`);
    const cpu = new Promise<number>((resolve) =>
      child.stdout?.once('data', (data: Buffer) => resolve(Number(String(data).trim()))),
    );
    child.stdin?.end();
    return { rps: result.requests.average, cpuUs: await cpu };
  } catch (error) {
    child.stdin?.end();
    throw error;
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Requests per second through toNodeHandler vs a bare node:http server vs Octokit's middleware. */
export async function runHttp(): Promise<void> {
  const body = bodies.status;
  const json = { 'content-type': 'application/json' };
  console.log(
    `\n## HTTP (autocannon, ${CONNECTIONS} connections, ${DURATION_S} s × ${ROUNDS} rounds each, median; servers in child processes)`,
  );
  const results: Record<'bare' | 'floor' | 'receiver' | 'octokit', LoadResult[]> = {
    bare: [],
    floor: [],
    receiver: [],
    octokit: [],
  };
  const bearer = { ...json, authorization: `Bearer ${AUTH_KEY}` };
  for (let round = 0; round < ROUNDS; round++) {
    results.bare.push(await load('bare', json, body));
    results.floor.push(await load('floor', bearer, body));
    results.receiver.push(await load('receiver', bearer, body));
    results.octokit.push(
      await load(
        'octokit',
        {
          ...json,
          'x-github-event': 'push',
          'x-github-delivery': 'bench',
          'x-hub-signature-256': githubSignature(body),
        },
        body,
      ),
    );
  }
  const bare = median(results.bare.map((run) => run.rps));
  const bareCpu = median(results.bare.map((run) => run.cpuUs));
  const row = (label: string, runs: LoadResult[]) => {
    const rps = median(runs.map((run) => run.rps));
    const cpu = median(runs.map((run) => run.cpuUs));
    console.log(
      `${label.padEnd(40)} ${rps.toFixed(0).padStart(7)} req/s ${(rps / bare).toFixed(2)}×` +
        `  server CPU ${cpu.toFixed(1).padStart(6)} µs/req (bare/this ${(bareCpu / cpu).toFixed(2)}×)` +
        `  rounds: ${runs.map((run) => run.rps.toFixed(0)).join(', ')}`,
    );
  };
  row('bare node:http (read body, 200)', results.bare);
  row('hand-written bearer + JSON.parse (floor)', results.floor);
  row('toNodeHandler (new event each request)', results.receiver);
  row('Octokit createNodeMiddleware', results.octokit);
  const ratio = median(results.receiver.map((run) => run.rps)) / bare;
  const octokit = median(results.octokit.map((run) => run.rps)) / bare;
  const floor = median(results.floor.map((run) => run.rps)) / bare;
  const cpuRatio = bareCpu / median(results.receiver.map((run) => run.cpuUs));
  console.log(
    `→ toNodeHandler ${ratio.toFixed(2)}× the bare server's requests/s (target ≥ ${TARGET}×: ${ratio >= TARGET ? 'met' : 'NOT met'}), ` +
      `${cpuRatio.toFixed(2)}× by server CPU per request; floor ${floor.toFixed(2)}×, Octokit ${octokit.toFixed(2)}×`,
  );
}
