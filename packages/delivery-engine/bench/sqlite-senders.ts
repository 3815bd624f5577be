/**
 * The senders of the SQLite section, each run once over `events` deliveries to the bench's
 * receiver with 16 in flight: deliveries/s, this process's CPU per delivery (the sender runs in
 * the bench process; the receiver in its own), and the receiver's slot turnaround.
 */
import { join } from 'node:path';
import { HEADERS, WEBHOOK_USER_AGENT } from '@kyc/contracts';
import type { SqliteDurability } from '@kyc/delivery-engine';
import { Agent, type Dispatcher, request } from 'undici';
import { handWrittenSender } from './hand-written-sender.js';
import type { BenchReceiver, Turnaround } from './receiver.js';
import { sqliteThroughput } from './sqlite-throughput.js';

export interface SenderRun {
  readonly rate: number;
  readonly cpuUsPerDelivery: number;
  readonly turnaround: Turnaround;
}

export interface SenderContext {
  readonly receiver: BenchReceiver;
  readonly ca: string;
  readonly body: string;
  readonly dir: string;
  readonly events: number;
  readonly concurrency: number;
}

const cpuUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

async function measured(context: SenderContext, run: () => Promise<{ rate: number; cpuUs: number }>) {
  await context.receiver.resetTurnaround();
  const { rate, cpuUs: cpu } = await run();
  return { rate, cpuUsPerDelivery: cpu / context.events, turnaround: await context.receiver.turnaround() };
}

/** `events` POSTs over `concurrency` loops, timed: deliveries/s and this process's CPU. */
async function timedLoops(context: SenderContext, events: number, post: () => Promise<void>) {
  let sent = 0;
  const started = performance.now();
  const cpu = cpuUs();
  await Promise.all(
    Array.from({ length: context.concurrency }, async () => {
      while (sent < events) {
        sent++;
        await post();
      }
    }),
  );
  const used = cpuUs() - cpu;
  return { rate: events / ((performance.now() - started) / 1000), cpuUs: used };
}

/** POSTs with `concurrency` loops over one undici Agent and nothing else: the ceiling. */
export function bareUndici(context: SenderContext, events = context.events): Promise<SenderRun> {
  return measured(context, async () => {
    const agent = new Agent({ connect: { ca: context.ca }, connections: context.concurrency });
    const headers = { [HEADERS.contentType]: 'application/json', [HEADERS.userAgent]: WEBHOOK_USER_AGENT };
    const figures = await timedLoops(context, events, async () => {
      const response = await request(context.receiver.url, {
        method: 'POST',
        headers,
        body: context.body,
        dispatcher: agent,
      });
      await response.body.dump();
    });
    await agent.close();
    return figures;
  });
}

/**
 * POSTs through undici's lower layer, `dispatch`, with a handler that drops the answer: the
 * second ceiling (issue 31), the way undici's own benchmarks measure. No response stream per call.
 */
export function bareDispatch(context: SenderContext, events = context.events): Promise<SenderRun> {
  return measured(context, async () => {
    const agent = new Agent({ connect: { ca: context.ca }, connections: context.concurrency });
    const { origin, pathname } = new URL(context.receiver.url);
    const options: Dispatcher.DispatchOptions = {
      origin,
      path: pathname,
      method: 'POST',
      headers: { [HEADERS.contentType]: 'application/json', [HEADERS.userAgent]: WEBHOOK_USER_AGENT },
      body: context.body,
    };
    const figures = await timedLoops(
      context,
      events,
      () =>
        new Promise<void>((resolve, reject) => {
          agent.dispatch(options, {
            onRequestStart: () => undefined,
            onResponseStart: () => undefined,
            onResponseData: () => undefined,
            onResponseEnd: () => resolve(),
            onResponseError: (_controller, error) => reject(error),
          });
        }),
    );
    await agent.close();
    return figures;
  });
}

/** The afternoon's sender: one better-sqlite3 transaction per delivery (see hand-written-sender.ts). */
export function handWritten(context: SenderContext, synchronous: 'NORMAL' | 'FULL', tag: string): Promise<SenderRun> {
  return measured(context, async () => {
    const sender = handWrittenSender({
      path: join(context.dir, `hand-${tag}.db`),
      synchronous,
      ca: context.ca,
      concurrency: context.concurrency,
    });
    for (let i = 0; i < context.events; i++) sender.enqueue(`evt_${tag}_${i}`, context.receiver.url, context.body);
    const started = performance.now();
    const cpu = cpuUs();
    const delivered = await sender.deliverAll();
    const used = cpuUs() - cpu;
    const rate = delivered / ((performance.now() - started) / 1000);
    await sender.close();
    return { rate, cpuUs: used };
  });
}

/** The engine over its SQLite store, enqueued first, timed from start() to the last recorded 200. */
export function engine(context: SenderContext, durability: SqliteDurability, tag: string): Promise<SenderRun> {
  return measured(context, async () => {
    const figures = await sqliteThroughput({
      url: context.receiver.url,
      ca: context.ca,
      body: context.body,
      path: join(context.dir, `engine-${tag}.db`),
      durability,
      events: context.events,
      concurrency: context.concurrency,
    });
    return { rate: figures.rate, cpuUs: figures.cpuUsPerDelivery * context.events };
  });
}
