import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { HEADERS } from '@kyc/contracts';
import { createTestCertificate, type TestCertificate } from '@kyc/test-support';
import { createWebhookReceiver, type IdempotencyStore, memoryIdempotencyStore } from '@kyc/webhook-receiver';
import { toNodeHandler } from '@kyc/webhook-receiver/node';

/** The Auth Key every chaos delivery carries; the fuzz and the storms check it is never echoed. */
export const CHAOS_KEY = 'kyc_chaos_Vq7Rz2Lm9Xw4Tb8N';

/** A name each worker resolves to its own loopback address, so receipts tell the workers apart. */
export const CHAOS_HOST = 'receiver.test';

/** What the faulty front answered to one request. */
export type Answer = number | 'reset' | 'reset_mid_body' | 'hang';

/** One request as it arrived, before the fault was chosen. */
export interface Receipt {
  readonly id: string;
  readonly attempt: number;
  readonly at: number;
  /** The loopback address the request arrived on: tells the sending worker apart. */
  readonly localAddress: string;
  answer: Answer | undefined;
}

export interface ChaosReceiverOptions {
  /** Probabilities of each fault per request; the rest goes to the real receiver. */
  readonly faults: {
    readonly reset: number;
    readonly resetMidBody: number;
    readonly hang: number;
    readonly error: number;
  };
  readonly random: () => number;
  /** Loopback addresses to listen on (same port on each). */
  readonly hosts?: readonly string[];
  /** The receiver's idempotency store (default: a memory store large enough for the whole run). */
  readonly idempotencyStore?: IdempotencyStore;
  /** Hold each healthy answer this long (ms), so attempts are in flight when a fault strikes. */
  readonly delayMs?: number;
}

export interface ChaosReceiver {
  readonly origin: string;
  readonly port: number;
  readonly certificate: TestCertificate;
  readonly receipts: Receipt[];
  /** How often the customer's handler ran, per Webhook-Id. */
  readonly handlerRuns: Map<string, number>;
  close(): Promise<void>;
}

/**
 * A real HTTPS server on loopback: a faulty front (resets before or in the middle of the
 * answer, never answers, answers 5xx/429 at random; `/fail` always answers 500) in front of the
 * real `@kyc/webhook-receiver` over `toNodeHandler`, whose handler counts its runs per event.
 */
export async function startChaosReceiver(options: ChaosReceiverOptions): Promise<ChaosReceiver> {
  const certificate = await createTestCertificate(['localhost', '127.0.0.1', CHAOS_HOST]);
  const receipts: Receipt[] = [];
  const handlerRuns = new Map<string, number>();
  const hanging = new Set<ServerResponse>();
  const receiver = createWebhookReceiver({
    authKeys: CHAOS_KEY,
    // The default memory store forgets the oldest of 10 000 events; a chaos run sends more.
    idempotencyStore: options.idempotencyStore ?? memoryIdempotencyStore({ maxEntries: 2_000_000 }),
    logger: {},
    onEvent: (_event, context) => {
      const id = context.webhookId ?? context.idempotencyKey;
      handlerRuns.set(id, (handlerRuns.get(id) ?? 0) + 1);
    },
  });
  const real = toNodeHandler(receiver);
  const { faults, random } = options;
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const receipt: Receipt = {
      id: String(req.headers[HEADERS.webhookId]),
      attempt: Number(req.headers[HEADERS.webhookAttempt]),
      at: Date.now(),
      localAddress: req.socket.localAddress ?? '',
      answer: undefined,
    };
    receipts.push(receipt);
    res.once('finish', () => {
      receipt.answer ??= res.statusCode;
    });
    const draw = random();
    let edge = faults.reset;
    if (req.url === '/fail') {
      receipt.answer = 500;
      req.resume();
      req.once('end', () => res.writeHead(500).end('always failing'));
      return;
    }
    if (draw < edge) {
      receipt.answer = 'reset';
      req.socket.destroy();
      return;
    }
    edge += faults.resetMidBody;
    if (draw < edge) {
      // A 200 status line and half a body, then a reset: a sender that counts this as
      // delivered would mark an event done that no handler ever saw.
      receipt.answer = 'reset_mid_body';
      req.resume();
      req.once('end', () => {
        res.writeHead(200, { 'content-length': '40' });
        res.write('{"received":');
        setImmediate(() => res.socket?.destroy());
      });
      return;
    }
    edge += faults.hang;
    if (draw < edge) {
      receipt.answer = 'hang';
      req.resume();
      hanging.add(res);
      res.once('close', () => hanging.delete(res));
      return;
    }
    edge += faults.error;
    if (draw < edge) {
      const status = [500, 502, 503, 429, 404][Math.floor(random() * 5)] ?? 500;
      req.resume();
      req.once('end', () => res.writeHead(status).end(`answer ${status}`));
      return;
    }
    if (options.delayMs === undefined) real(req, res);
    else setTimeout(() => real(req, res), options.delayMs);
  };
  const servers: Server[] = [];
  const listen = async (host: string, port: number) => {
    const server = createServer({ key: certificate.key, cert: certificate.cert }, handle);
    servers.push(server);
    server.listen(port, host);
    await once(server, 'listening');
    return (server.address() as AddressInfo).port;
  };
  const [first = '127.0.0.1', ...others] = options.hosts ?? ['127.0.0.1'];
  const port = await listen(first, 0);
  for (const host of others) await listen(host, port);
  return {
    origin: `https://${first}:${port}`,
    port,
    certificate,
    receipts,
    handlerRuns,
    close: async () => {
      for (const res of hanging) res.destroy();
      await Promise.all(
        servers.map(async (server) => {
          server.closeAllConnections();
          server.close();
          await once(server, 'close').catch(() => undefined);
        }),
      );
    },
  };
}
