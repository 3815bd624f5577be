import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { AUTH_KEY, bodies, githubSignature } from './fixtures.js';

/** What a bench server (http-server.ts) reports about the requests since its warm-up ended. */
export interface ServerReport {
  readonly requests: number;
  /** CPU time (user + system, every thread) per request, µs. */
  readonly cpuUs: number;
  /** The main thread's part and the other threads' (garbage collector, compiler), from /proc: 10 ms ticks. */
  readonly mainThreadUs: number;
  readonly otherThreadsUs: number;
  /** With count-hooks.ts preloaded: what each request created. */
  readonly counts?: Readonly<Record<string, number>>;
}

/** A bench server in its own process, driven over stdin (see http-server.ts). */
export interface BenchServer {
  readonly port: number;
  readonly child: ChildProcess;
  /** Ends the warm-up: the report counts from here. */
  mark(): Promise<void>;
  report(): Promise<ServerReport>;
  close(): Promise<void>;
}

/**
 * Starts `http-server.mjs <kind>` (bundled next to this file) with `command` in front (node
 * flags, or valgrind), and waits for its port. Lines of the server's stdout that are not its
 * own ("@kyc …") — node's traces — go to stderr.
 */
export async function startBenchServer(
  kind: string,
  command: readonly string[] = [process.execPath],
): Promise<BenchServer> {
  const server = new URL('./http-server.mjs', import.meta.url).pathname;
  const [file, ...args] = command;
  const child = spawn(file ?? process.execPath, [...args, server, kind], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const next = async (): Promise<string> => {
    for (;;) {
      const line = await lines.next();
      if (line.done) throw new Error(`the ${kind} bench server ended early (exit ${child.exitCode})`);
      if (line.value.startsWith('@kyc ')) return line.value.slice(5);
      process.stderr.write(`${line.value}\n`);
    }
  };
  const port = Number(await next());
  return {
    port,
    child,
    async mark() {
      child.stdin?.write('mark\n');
      await next();
    },
    async report() {
      child.stdin?.write('report\n');
      return JSON.parse(await next()) as ServerReport;
    },
    async close() {
      child.stdin?.end();
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

/** Headers a kind of server needs besides the body: the bearer key, or Octokit's signature. */
function headersFor(kind: string, body: string): Record<string, string> {
  const json = { 'content-type': 'application/json' };
  if (kind === 'octokit') {
    return {
      ...json,
      'x-github-event': 'push',
      'x-github-delivery': 'bench',
      'x-hub-signature-256': githubSignature(body),
    };
  }
  return { ...json, authorization: `Bearer ${AUTH_KEY}` };
}

// One counter for the whole process: every request of every run is a new event for the receiver
// (a first claim, the handler, the completion), never a duplicate of a warm-up request.
let sequence = 0;

/**
 * Sends the status-shape body to a bench server with autocannon (in this process, the server in
 * its own), for `amount` requests or `seconds`. Every request carries a new `Webhook-Id`; the
 * servers that ignore it get it too, so the load generator does the same work for every server.
 */
export async function driveLoad(
  kind: string,
  port: number,
  load: {
    readonly amount?: number;
    readonly seconds?: number;
    readonly connections: number;
    /** Seconds before a request counts as lost (autocannon's default: 10); under valgrind a batch may wait longer. */
    readonly timeout?: number | undefined;
  },
): Promise<{ readonly rps: number }> {
  const body = bodies.status;
  const result = await autocannon({
    url: `http://127.0.0.1:${port}/webhooks/kyc`,
    connections: load.connections,
    ...(load.timeout === undefined ? {} : { timeout: load.timeout }),
    ...(load.amount === undefined ? { duration: load.seconds ?? 1 } : { amount: load.amount }),
    requests: [
      {
        method: 'POST',
        body,
        headers: headersFor(kind, body),
        setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'webhook-id': `evt_${sequence++}` } }),
      },
    ],
  });
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0)
    throw new Error(
      `${kind}: ${bad} requests were not answered 200 (${result.non2xx} other statuses, ${result.errors} errors, ${result.timeouts} timeouts)`,
    );
  return { rps: result.requests.average };
}
