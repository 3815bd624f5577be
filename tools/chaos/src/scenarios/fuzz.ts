import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { Pool } from 'undici';
import { CHAOS_KEY } from '../support/chaos-receiver.js';
import { type FuzzCase, fuzzCases, type HttpCase, type RawCase } from '../support/fuzz-cases.js';
import { Invariants, type RunContext, type Scenario } from '../support/scenario.js';
import { spawnScript } from '../support/spawn-script.js';

/** Every status the receiver table documents for the node adapter with a memory store. */
const DOCUMENTED = [200, 400, 401, 405, 409, 413, 503];
/** What Node's own HTTP parser answers to broken framing before any of our code runs. */
const NODE_PARSER = [400, 431];
const FRAGMENTS = [CHAOS_KEY, CHAOS_KEY.slice(0, 8), CHAOS_KEY.slice(8, 16), CHAOS_KEY.slice(-8)];
const HANG_MS = 15_000;

interface ServerStats {
  handlerCalls: number;
  callsWithoutValidKey: number;
  repeatedRuns: number;
  logLines: number;
  logLeaks: number;
  rss: number;
  /** After a full collection: what is still referenced. */
  heapUsed: number;
}

/** Checks one answer from our code: a documented status and a typed JSON body, no key material. */
function checkTyped(invariants: Invariants, label: string, status: number, text: string, expect?: readonly number[]) {
  invariants.check(status !== 500, 'a 500 from the receiver', () => `${label}: ${text.slice(0, 120)}`);
  invariants.check(DOCUMENTED.includes(status), 'an undocumented status', () => `${label}: ${status}`);
  if (expect !== undefined) {
    invariants.check(
      expect.includes(status),
      'not the answer the receiver table gives',
      () => `${label}: ${status}, expected ${expect.join('/')}`,
    );
  }
  let typed = false;
  try {
    const answer = JSON.parse(text) as { received?: unknown; error?: { code?: unknown } };
    typed = answer.received === true || typeof answer.error?.code === 'string';
  } catch {
    typed = false;
  }
  invariants.check(typed, 'an answer without a typed JSON body', () => `${label}: ${status} ${text.slice(0, 80)}`);
}

const leaks = (text: string) => FRAGMENTS.some((fragment) => text.includes(fragment));

export const fuzz: Scenario = {
  name: 'fuzz',
  title: 'Receiver over node:http under fuzzed requests: bodies, headers, framing, slow and oversized bodies',
  breaks: ['echo-auth'],
  async run(context: RunContext) {
    const total = context.mode === 'full' ? 1_000_000 : 50_000;
    const users = 32;
    const invariants = new Invariants();
    let ports: [number, number] = [0, 0];
    const server = spawnScript(
      'fuzz-server',
      { key: CHAOS_KEY, breakWith: context.breakWith },
      (line) => {
        const [word, port, statsPort] = line.split(' ');
        if (word === 'listening') ports = [Number(port), Number(statsPort)];
      },
      { nodeFlags: ['--expose-gc'] },
    );
    await server.waitFor('listening');
    const origin = `http://127.0.0.1:${ports[0]}`;
    const stats = async (): Promise<ServerStats> =>
      (await fetch(`http://127.0.0.1:${ports[1]}/stats`)).json() as Promise<ServerStats>;
    const pool = new Pool(origin, { connections: users, headersTimeout: HANG_MS, bodyTimeout: HANG_MS });
    const next = fuzzCases(context.random, CHAOS_KEY);
    const statuses = new Map<string, number>();
    const count = (key: string) => statuses.set(key, (statuses.get(key) ?? 0) + 1);
    let closedOnOversize = 0;
    let hangUps = 0;
    const curve: number[] = [];

    const sendHttp = async (c: HttpCase) => {
      const body =
        c.body === undefined
          ? undefined
          : c.chunks === undefined
            ? c.body
            : Readable.from(
                (function* () {
                  let at = 0;
                  for (const size of c.chunks ?? []) {
                    if (at >= (c.body?.length ?? 0)) break;
                    yield c.body?.slice(at, at + size) ?? new Uint8Array();
                    at += size;
                  }
                  if (at < (c.body?.length ?? 0)) yield c.body?.slice(at) ?? new Uint8Array();
                })(),
              );
      try {
        const response = await pool.request({
          path: '/webhooks/kyc',
          method: c.method,
          headers: c.headers,
          body: body ?? null,
        });
        const text = await response.body.text();
        count(String(response.statusCode));
        // A HEAD answer has no body, by HTTP's rules.
        if (c.method === 'HEAD')
          invariants.check(response.statusCode === 405, 'HEAD not refused with 405', () => c.label);
        else checkTyped(invariants, c.label, response.statusCode, text, c.expect);
        invariants.check(!leaks(text + JSON.stringify(response.headers)), 'key material in an answer', () => c.label);
      } catch (error) {
        const code = (error as { code?: string }).code ?? String(error);
        // A receiver that stops reading at the limit and closes may beat undici to its answer.
        if (c.label.startsWith('oversized') && /SOCKET|EPIPE|ECONNRESET|closed/i.test(`${code} ${error}`)) {
          closedOnOversize++;
          return;
        }
        invariants.check(
          code !== 'UND_ERR_HEADERS_TIMEOUT' && code !== 'UND_ERR_BODY_TIMEOUT',
          'a request hung',
          () => c.label,
        );
        invariants.check(false, 'a request failed on the wire', () => `${c.label}: ${code}`);
      }
    };

    const sendRaw = (c: RawCase) =>
      new Promise<void>((resolve) => {
        const socket = connect(ports[0], '127.0.0.1');
        const chunks: Buffer[] = [];
        const timer = setTimeout(() => {
          invariants.check(false, 'a request hung', () => c.label);
          socket.destroy();
        }, HANG_MS);
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('error', () => undefined);
        socket.on('close', () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString('latin1');
          invariants.check(!leaks(text), 'key material in an answer', () => c.label);
          const answers = text.split(/(?=HTTP\/1\.1 \d{3} )/).filter((part) => part.startsWith('HTTP/1.1 '));
          if (c.hangUp) hangUps++;
          else invariants.check(answers.length > 0, 'no answer before the server closed', () => c.label);
          for (const answer of answers) {
            const status = Number(answer.slice(9, 12));
            count(`${status}${answer.includes('application/json') ? '' : ' (node parser)'}`);
            if (c.expect !== undefined) {
              invariants.check(
                c.expect.includes(status),
                'not the answer the receiver table gives',
                () => `${c.label}: ${status}, expected ${c.expect?.join('/')}`,
              );
            }
            if (answer.includes('application/json')) {
              const bodyAt = answer.indexOf('\r\n\r\n');
              const body = answer.slice(bodyAt + 4);
              const chunked = /transfer-encoding: chunked/i.test(answer.slice(0, bodyAt));
              const json = chunked ? body.replace(/^[0-9a-f]+\r\n/i, '').replace(/\r\n0\r\n\r\n$/, '') : body;
              checkTyped(invariants, c.label, status, json);
            } else {
              invariants.check(NODE_PARSER.includes(status), 'an undocumented status', () => `${c.label}: ${status}`);
            }
          }
          resolve();
        });
        void (async () => {
          for (const part of c.parts) {
            if (socket.destroyed) return;
            socket.write(part);
            if (c.gapMs > 0) await new Promise((r) => setTimeout(r, c.gapMs));
          }
          if (c.hangUp) socket.destroy();
        })();
      });

    const started = Date.now();
    let sent = 0;
    let rssStart = 0;
    let heapStart = 0;
    const step = Math.floor(total / 20);
    const user = async () => {
      while (sent < total) {
        const n = sent++;
        const c: FuzzCase = next();
        await (c.kind === 'http' ? sendHttp(c) : sendRaw(c));
        if (n % step === step - 1) {
          const s = await stats();
          curve.push(Math.round(s.rss / 2 ** 20));
          if (rssStart === 0) {
            rssStart = s.rss;
            heapStart = s.heapUsed;
          }
          context.progress(`fuzz: ${n + 1}/${total} requests, RSS ${Math.round(s.rss / 2 ** 20)} MB`);
        }
      }
    };
    await Promise.all(Array.from({ length: users }, user));
    const seconds = (Date.now() - started) / 1000;
    const end = await stats();
    invariants.check(server.child.exitCode === null, 'the receiver process died', () => server.stderr().slice(-500));
    invariants.check(
      end.callsWithoutValidKey === 0,
      'the handler ran without a valid key',
      () => `${end.callsWithoutValidKey}`,
    );
    invariants.check(end.repeatedRuns === 0, 'the handler ran twice for one event', () => `${end.repeatedRuns}`);
    invariants.check(end.logLeaks === 0, 'key material in a log line', () => `${end.logLeaks}`);
    // Flat: the default memory store is bounded (10 000 events), so what survives a full
    // collection must not grow with the count; RSS is reported (V8 keeps freed pages a while).
    invariants.check(
      end.heapUsed < heapStart + 32 * 2 ** 20,
      'live heap grew',
      () => `${Math.round(heapStart / 2 ** 20)} → ${Math.round(end.heapUsed / 2 ** 20)} MB`,
    );
    await pool.close();
    server.kill('SIGTERM');
    await server.exited;
    return {
      figures: [
        ['requests', total],
        ['time (s)', Math.round(seconds)],
        ['throughput (requests/s)', Math.round(total / seconds)],
        [
          'answers by status',
          [...statuses]
            .sort()
            .map(([status, n]) => `${status}: ${n}`)
            .join(', '),
        ],
        ['client hang-ups mid-request (no answer expected)', hangUps],
        ['oversized bodies closed at the limit before undici read the 413', closedOnOversize],
        ['handler runs (all with a valid key)', end.handlerCalls],
        ['log lines (none with key material)', end.logLines],
        [
          'receiver RSS after 5 % / at the end (MB)',
          `${Math.round(rssStart / 2 ** 20)} / ${Math.round(end.rss / 2 ** 20)}`,
        ],
        ['RSS every 5 % (MB)', curve.join(' ')],
        [
          'live heap after a full GC, after 5 % / at the end (MB)',
          `${Math.round(heapStart / 2 ** 20)} / ${Math.round(end.heapUsed / 2 ** 20)}`,
        ],
      ],
      failures: invariants.failures,
    };
  },
};
