/**
 * Enqueues three events, one at a time, into a SQLite store with `durability: 'power-loss'`, in
 * a process of its own (for `wal-faults.test.ts`), and prints what each enqueue did and the
 * store's health as JSON. The parent runs it under `strace` to fail the WAL's fsyncs, or opens
 * it by a relative path and has it change its working directory between enqueues.
 */
import { createDeliveryEngine, sqliteDeliveryStore } from '@kyc/delivery-engine';

const config = JSON.parse(process.env.KYC_WAL_FAULT ?? '{}') as {
  path: string;
  /** Open the store from this working directory (a relative `path` is read from it). */
  cwd?: string;
  /** Change the working directory once the store is open, before the first enqueue. */
  chdirAfterOpen?: string;
};
if (config.cwd !== undefined) process.chdir(config.cwd);
const store = sqliteDeliveryStore({ path: config.path, durability: 'power-loss' });
const engine = createDeliveryEngine({ store, allowPrivateNetworks: ['127.0.0.0/8'] });
if (config.chdirAfterOpen !== undefined) process.chdir(config.chdirAfterOpen);
const outcomes: string[] = [];
for (let i = 0; i < 3; i++) {
  try {
    await engine.enqueue({
      id: `e-${i}`,
      url: 'https://127.0.0.1:9/kyc',
      body: JSON.stringify({ sessionId: `s-${i}` }),
    });
    outcomes.push('stored');
  } catch (error) {
    outcomes.push(`${(error as { code?: string }).code}: ${(error as Error).message}`);
  }
}
const health = engine.loopHealth().store;
await store.close();
process.stdout.write(`${JSON.stringify({ outcomes, health })}\n`);
