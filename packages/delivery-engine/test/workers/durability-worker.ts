/**
 * Enqueues events into a SQLite store in a process of its own, for the durability suite, which
 * runs it under `strace` and counts the fsyncs of the write-ahead log between two markers (an
 * fsync of `<path>.start` and of `<path>.end`). Configured by KYC_DURABILITY (JSON).
 */
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { createDeliveryEngine, type SqliteDurability, sqliteDeliveryStore } from '@kyc/delivery-engine';

const config = JSON.parse(process.env.KYC_DURABILITY ?? '{}') as {
  path: string;
  durability: SqliteDurability;
  events: number;
  together: boolean;
};
const marker = (name: string) => {
  const fd = openSync(`${config.path}.${name}`, 'w');
  fsyncSync(fd);
  closeSync(fd);
};
const store = sqliteDeliveryStore({ path: config.path, durability: config.durability });
// Nothing is sent (the engine never starts): the loopback URL only spares a DNS lookup.
const engine = createDeliveryEngine({ store, allowPrivateNetworks: ['127.0.0.0/8'] });
const event = (i: number) => ({ url: 'https://127.0.0.1:9/kyc', body: JSON.stringify({ sessionId: `s-${i}` }) });
// The first enqueue creates the write-ahead log; the count starts after it.
await engine.enqueue(event(-1));
marker('start');
if (config.together) await Promise.all(Array.from({ length: config.events }, (_, i) => engine.enqueue(event(i))));
else for (let i = 0; i < config.events; i++) await engine.enqueue(event(i));
marker('end');
await store.close();
