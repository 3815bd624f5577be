import { once } from 'node:events';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { between } from './between.js';

/** Faults a proxy applies to every chunk in both directions. */
export interface ProxyFaults {
  /** Added to every chunk, each way, plus up to `jitterMs`. */
  readonly delayMs: number;
  readonly jitterMs: number;
  /** Probability that a chunk is held for `stallMs` (a lost segment waiting for its retransmission). */
  readonly stallProbability: number;
  readonly stallMs: number;
  /** Probability that a connection is reset (RST) after a random number of bytes. */
  readonly resetProbability: number;
}

export interface FaultProxy {
  readonly port: number;
  readonly stats: { connections: number; resets: number; stalls: number };
  close(): Promise<void>;
}

/**
 * A TCP proxy on loopback that forwards to `target` with latency, retransmission-like stalls and
 * resets in the middle of a request or an answer. Used where the kernel has no `sch_netem`
 * (`tc netem` needs it). Order within a connection is kept: chunks are delayed, never reordered.
 */
export async function startFaultProxy(
  target: { readonly host: string; readonly port: number },
  faults: ProxyFaults,
  random: () => number,
): Promise<FaultProxy> {
  const stats = { connections: 0, resets: 0, stalls: 0 };
  const sockets = new Set<Socket>();
  const pipe = (from: Socket, to: Socket, resetAfter: number | undefined, counter: { bytes: number }) => {
    let chain = Promise.resolve();
    from.on('data', (chunk: Buffer) => {
      from.pause();
      let wait = faults.delayMs + between(random, 0, faults.jitterMs);
      if (random() < faults.stallProbability) {
        stats.stalls++;
        wait += faults.stallMs;
      }
      chain = chain.then(async () => {
        await new Promise((resolve) => setTimeout(resolve, wait));
        counter.bytes += chunk.length;
        if (resetAfter !== undefined && counter.bytes >= resetAfter) {
          stats.resets++;
          to.write(chunk.subarray(0, Math.max(0, chunk.length - (counter.bytes - resetAfter))));
          from.resetAndDestroy();
          to.resetAndDestroy();
          return;
        }
        if (!to.destroyed) to.write(chunk);
        from.resume();
      });
    });
    from.on('end', () => void chain.then(() => to.end()));
    from.on('error', () => to.destroy());
    from.on('close', () => void chain.then(() => to.destroy()));
  };
  const server = createServer((client) => {
    stats.connections++;
    const upstream = connect(target.port, target.host);
    sockets.add(client).add(upstream);
    client.on('close', () => sockets.delete(client));
    upstream.on('close', () => sockets.delete(upstream));
    // A reset somewhere in the first few kilobytes: mid-handshake, mid-request or mid-answer.
    const resetAfter = random() < faults.resetProbability ? between(random, 1, 4000) : undefined;
    const counter = { bytes: 0 };
    pipe(client, upstream, resetAfter, counter);
    pipe(upstream, client, resetAfter, counter);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    stats,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close').catch(() => undefined);
    },
  };
}
