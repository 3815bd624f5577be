/**
 * Every company's HTTPS endpoint of the isolation scenarios, on one port: the engine resolves
 * `<host>.isolation.test` to 127.0.0.1, so each host name is an origin of its own, with its own
 * connections. What a host does is in its name: `h…` (healthy) and `f…` (flooded) answer 200 after
 * `answerMs`; from `controlMs` after SIGUSR2 (the load's start) on, `d…` accepts the request and
 * never answers and `s…` answers 200 after `slowMs`; before it, they answer like the healthy ones. Prints `listening <port>`, then
 * `R <webhook-id> <arrival ms> <host> <1 if the request opened its connection>` per request.
 */
import { createServer } from 'node:https';
import type { Socket } from 'node:net';

interface ReceiverConfig {
  readonly key: string;
  readonly cert: string;
  readonly answerMs: number;
  readonly slowMs: number;
  readonly controlMs: number;
}

const config = JSON.parse(process.env.KYC_CHAOS ?? '{}') as ReceiverConfig;
let faultAt = Number.POSITIVE_INFINITY;
process.on('SIGUSR2', () => {
  faultAt = Date.now() + config.controlMs;
});
const seen = new WeakSet<Socket>();
const lines: string[] = [];
// Lines go out in batches: a flood makes hundreds of requests a second.
setInterval(() => {
  if (lines.length === 0) return;
  process.stdout.write(`${lines.join('\n')}\n`);
  lines.length = 0;
}, 20);

const server = createServer({ key: config.key, cert: config.cert }, (req, res) => {
  const opened = !seen.has(req.socket);
  seen.add(req.socket);
  req.resume();
  req.on('end', () => {
    const now = Date.now();
    const host = (req.headers.host ?? '').split('.')[0] ?? '';
    lines.push(`R ${String(req.headers['webhook-id'])} ${now} ${host} ${opened ? 1 : 0}`);
    const faulty = now >= faultAt;
    if (faulty && host.startsWith('d')) return;
    const delay = faulty && host.startsWith('s') ? config.slowMs : config.answerMs;
    setTimeout(() => res.end('ok'), delay);
  });
});
// Like a typical reverse proxy (nginx keeps idle connections 75 s): longer than the engine keeps them.
server.keepAliveTimeout = 75_000;
server.headersTimeout = 80_000;
server.requestTimeout = 0;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address !== null ? address.port : 0}\n`);
});
process.on('SIGTERM', () => {
  process.stdout.write(`${lines.join('\n')}\n`);
  server.closeAllConnections();
  process.exit(0);
});
