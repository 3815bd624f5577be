import { join } from 'node:path';
import { createDeliveryEngine, sqliteDeliveryStore } from '@kyc/delivery-engine';
import { median, range } from './stats.js';

const CALLERS = 64;

const cpuUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

/** CPU µs per enqueue into a fresh SQLite store: `callers` enqueues in flight at a time. */
async function enqueueCost(path: string, url: string, body: string, events: number, callers: number): Promise<number> {
  const store = sqliteDeliveryStore({ path });
  const engine = createDeliveryEngine({ store, allowPrivateNetworks: ['127.0.0.0/8'] });
  await engine.enqueue({ url, body });
  const started = cpuUs();
  for (let sent = 0; sent < events; sent += callers) {
    await Promise.all(Array.from({ length: Math.min(callers, events - sent) }, () => engine.enqueue({ url, body })));
  }
  const used = cpuUs() - started;
  await store.close();
  return used / events;
}

/**
 * What an enqueue costs the enqueuing process: with one caller awaiting each (every enqueue its
 * own commit) and with 64 callers at once, as a service finishing sessions under load does
 * (their rows share commits). The target of issue 20 is read on the second.
 */
export async function enqueueSection(options: {
  readonly dir: string;
  readonly url: string;
  readonly body: string;
  readonly events: number;
  readonly rounds: number;
}): Promise<void> {
  const serial: number[] = [];
  const together: number[] = [];
  await enqueueCost(join(options.dir, 'enqueue-warm.db'), options.url, options.body, 2000, CALLERS);
  for (let round = 0; round < options.rounds; round++) {
    serial.push(
      await enqueueCost(join(options.dir, `enqueue-1-${round}.db`), options.url, options.body, options.events, 1),
    );
    together.push(
      await enqueueCost(
        join(options.dir, `enqueue-64-${round}.db`),
        options.url,
        options.body,
        options.events,
        CALLERS,
      ),
    );
  }
  console.log(
    `enqueue CPU, ${CALLERS} callers at once: ${median(together).toFixed(1)} µs [${range(together, 1)}] (target ≤ 25 µs); ` +
      `one caller awaiting each: ${median(serial).toFixed(1)} µs [${range(serial, 1)}] (a commit each)`,
  );
}
