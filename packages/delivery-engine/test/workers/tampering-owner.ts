/**
 * An engine that owns its SQLite file and, on command (one line on stdin each), does from its own
 * process what an operator's script might: `read` reads the lock file, `copy` copies the data
 * folder as a naive backup would, `enqueue <name>` stores one event. Prints `<command> done` after
 * each; `close` closes the store and exits. The engine is never started: nothing is sent.
 */
import { cpSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { createDeliveryEngine, sqliteDeliveryStore } from '@kyc/delivery-engine';
import { bodyFor } from '../support/attempts.js';

const { path } = JSON.parse(process.env.KYC_WORKER ?? '{}') as { path: string };
const store = sqliteDeliveryStore({ path });
const engine = createDeliveryEngine({ store, allowPrivateNetworks: ['127.0.0.0/8'] });
await store.acquireOwnership?.();
process.stdout.write('started\n');
for await (const line of createInterface({ input: process.stdin })) {
  const [command, name] = line.split(' ');
  if (command === 'read') readFileSync(`${path}-lock`);
  else if (command === 'copy') cpSync(dirname(path), `${dirname(path)}-copy`, { recursive: true });
  else if (command === 'enqueue') await engine.enqueue({ url: 'https://127.0.0.1:9/hook', body: bodyFor(name ?? '') });
  else if (command === 'close') break;
  process.stdout.write(`${command} done\n`);
}
await store.close();
process.exit(0);
