/**
 * The bench's HTTPS receiver, in its own process so it does not share the engine's event
 * loop. Answers 200 at once; prints its port; on "count" over IPC replies with requests seen.
 */
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';

const { key, cert } = JSON.parse(process.env.KYC_BENCH_TLS ?? '{}') as { key: string; cert: string };
let count = 0;
const server = createServer({ key, cert, keepAliveTimeout: 30_000 }, (req, res) => {
  req.resume();
  req.on('end', () => {
    count++;
    res.writeHead(200, { 'content-length': '2' });
    res.end('ok');
  });
});
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});
process.on('message', (message) => {
  if (message === 'count') process.send?.({ count });
  if (message === 'exit') process.exit(0);
});
