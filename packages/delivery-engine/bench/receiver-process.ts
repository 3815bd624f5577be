/**
 * The bench's HTTPS receiver, in its own process so it does not share the sender's event loop.
 * Answers 200 at once. Over IPC: `count` → requests seen; `cpu` → its CPU time (µs);
 * `turnaround-reset` / `turnaround` → how long after an answer left the next request arrived,
 * matched first in, first out: with every slot of a sender busy, the time a slot spends between
 * its answer and its next request, in the sender (plus loopback).
 */
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';

const { key, cert } = JSON.parse(process.env.KYC_BENCH_TLS ?? '{}') as { key: string; cert: string };
let count = 0;
let answeredAt: number[] = [];
let gaps: number[] = [];
const server = createServer({ key, cert, keepAliveTimeout: 30_000 }, (req, res) => {
  const arrived = performance.now();
  const answered = answeredAt.shift();
  if (answered !== undefined) gaps.push(arrived - answered);
  req.resume();
  req.on('end', () => {
    count++;
    res.writeHead(200, { 'content-length': '2' });
    res.end('ok', () => answeredAt.push(performance.now()));
  });
});
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
process.on('message', (message) => {
  if (message === 'count') process.send?.({ count });
  if (message === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send?.({ cpuUs: user + system });
  }
  if (message === 'turnaround-reset') {
    answeredAt = [];
    gaps = [];
    process.send?.({ reset: true });
  }
  if (message === 'turnaround') {
    const sorted = gaps.sort((a, b) => a - b);
    process.send?.({ p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), samples: sorted.length });
  }
  if (message === 'exit') process.exit(0);
});
