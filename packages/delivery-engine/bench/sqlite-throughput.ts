import { createDeliveryEngine, sqliteDeliveryStore } from '../src/index.js';

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
}

/**
 * Enqueues `events` deliveries to one endpoint, then starts the engine and times until the
 * last is delivered: deliveries per second (bounded: gives up after two minutes).
 */
export async function sqliteThroughput(options: SqliteThroughputOptions): Promise<number> {
  const { url, body, events, concurrency } = options;
  const store = sqliteDeliveryStore({ path: options.path });
  let delivered = 0;
  let done: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => {
    done = resolve;
  });
  const engine = createDeliveryEngine({
    store,
    allowPrivateNetworks: ['127.0.0.0/8'],
    tls: { ca: options.ca },
    concurrency,
    perEndpointConcurrency: concurrency,
    onAttempt: (event) => {
      if (event.state === 'delivered' && ++delivered === events) done();
    },
  });
  for (let i = 0; i < events; i++) await engine.enqueue({ url, body });
  const started = performance.now();
  await engine.start();
  await Promise.race([finished, new Promise((resolve) => setTimeout(resolve, 120_000))]);
  const rate = delivered / ((performance.now() - started) / 1000);
  await engine.stop();
  await store.close();
  return rate;
}
