/**
 * The receiver under fuzz, in its own process so its memory and its survival are measured
 * apart from the load: `toNodeHandler` over `node:http` with the default memory store. A
 * second port answers `/stats` (RSS, handler calls, calls without a valid key, repeated runs,
 * log lines that held key material). Prints `listening <port> <statsPort>`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebhookReceiver, type LogFields, verifyAuthorization } from '@kyc/webhook-receiver';
import { toNodeHandler } from '@kyc/webhook-receiver/node';

const { key, breakWith } = JSON.parse(process.env.KYC_CHAOS ?? '{}') as { key: string; breakWith?: string };
const fragments = [key, key.slice(0, 8), key.slice(8, 16), key.slice(-8)];
const stats = { handlerCalls: 0, callsWithoutValidKey: 0, repeatedRuns: 0, logLines: 0, logLeaks: 0 };
// Idempotency key → the handler call that last ran it.
const runs = new Map<string, number>();
const log = (message: string, fields?: LogFields) => {
  stats.logLines++;
  const text = `${message} ${JSON.stringify(fields ?? {})}`;
  if (fragments.some((fragment) => text.includes(fragment))) stats.logLeaks++;
};
const receiver = createWebhookReceiver({
  authKeys: key,
  logger: { debug: log, info: log, warn: log, error: log },
  onEvent: (_event, context) => {
    stats.handlerCalls++;
    if (!verifyAuthorization(context.header('authorization'), [key]).ok) stats.callsWithoutValidKey++;
    // The default memory store remembers its 10 000 most recent events and forgets older ones
    // by design; a repeat within the last 5 000 handler runs is one it must have caught.
    const last = runs.get(context.idempotencyKey);
    if (last !== undefined && stats.handlerCalls - last < 5000) stats.repeatedRuns++;
    runs.delete(context.idempotencyKey);
    runs.set(context.idempotencyKey, stats.handlerCalls);
    if (runs.size > 5000) runs.delete(runs.keys().next().value ?? '');
  },
});
const handler = toNodeHandler(receiver);
const server = createServer(
  breakWith === 'echo-auth'
    ? // The broken build: a refusal that names the token it refused, as many hand-written receivers do.
      (req, res) => {
        const end = res.end.bind(res);
        res.end = ((chunk?: unknown) =>
          end(res.statusCode === 401 ? `refused ${req.headers.authorization}` : (chunk as string))) as typeof res.end;
        handler(req, res);
      }
    : handler,
);
server.listen(0, '127.0.0.1');
const statsServer = createServer((_req, res) => {
  // Started with --expose-gc: measure what is still referenced, not garbage not yet collected.
  (globalThis as { gc?: () => void }).gc?.();
  const memory = process.memoryUsage();
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ ...stats, rss: memory.rss, heapUsed: memory.heapUsed }));
});
statsServer.listen(0, '127.0.0.1');
await Promise.all([
  new Promise((resolve) => server.once('listening', resolve)),
  new Promise((resolve) => statsServer.once('listening', resolve)),
]);
process.stdout.write(
  `listening ${(server.address() as AddressInfo).port} ${(statsServer.address() as AddressInfo).port}\n`,
);
