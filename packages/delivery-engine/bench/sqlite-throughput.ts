import { createDeliveryEngine, type SqliteDurability, sqliteDeliveryStore } from '@kyc/delivery-engine';
import { deliveryCounter } from './delivery-counter.js';

export interface SqliteThroughputOptions {
  /** The receiver's URL (HTTPS on loopback). */
  readonly url: string;
  /** The receiver's self-signed certificate. */
  readonly ca: string;
  /** The webhook body sent with every delivery. */
  readonly body: string;
  /** A new SQLite file. */
  readonly path: string;
  readonly events: number;
  readonly concurrency: number;
  /** The store's durability (default `process-crash`). */
  readonly durability?: SqliteDurability;
  /** Called with the count of deliveries so far as each is recorded (bench/callgrind-sender.ts). */
  readonly onDelivered?: (count: number) => void;
  /** Called as each phase starts; the function it returns, as it ends (a profiler, for bench/profile-run.ts). */
  readonly observe?: (phase: 'enqueue' | 'deliver') => Promise<() => Promise<void>>;
}

/** Deliveries per second, and this process's CPU (user + system) per enqueue and per delivery. */
export interface ThroughputFigures {
  readonly rate: number;
  readonly cpuUsPerEnqueue: number;
  readonly cpuUsPerDelivery: number;
}

const cpuUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

/**
 * Enqueues `events` deliveries to one endpoint, then starts the engine and times until the
 * last is delivered: deliveries per second (bounded: gives up after two minutes).
 */
export async function sqliteThroughput(options: SqliteThroughputOptions): Promise<ThroughputFigures> {
  const { url, body, events, concurrency } = options;
  const store = sqliteDeliveryStore({ path: options.path, durability: options.durability ?? 'process-crash' });
  const counter = deliveryCounter(events, options.onDelivered);
  const engine = createDeliveryEngine({
    store,
    allowPrivateNetworks: ['127.0.0.0/8'],
    tls: { ca: options.ca },
    concurrency,
    perEndpointConcurrency: concurrency,
    onAttempt: counter.onAttempt,
  });
  const endEnqueue = await options.observe?.('enqueue');
  const enqueueCpu = cpuUs();
  for (let i = 0; i < events; i++) await engine.enqueue({ url, body });
  const cpuUsPerEnqueue = (cpuUs() - enqueueCpu) / events;
  await endEnqueue?.();
  const endDeliver = await options.observe?.('deliver');
  const started = performance.now();
  const deliveryCpu = cpuUs();
  await engine.start();
  await Promise.race([counter.finished, new Promise((resolve) => setTimeout(resolve, 120_000))]);
  const delivered = counter.delivered();
  const rate = delivered / ((performance.now() - started) / 1000);
  const cpuUsPerDelivery = (cpuUs() - deliveryCpu) / Math.max(1, delivered);

  await endDeliver?.();
  await engine.stop();
  await store.close();
  return { rate, cpuUsPerEnqueue, cpuUsPerDelivery };
}
