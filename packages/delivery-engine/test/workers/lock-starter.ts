/**
 * Opens one SQLite store per round and takes its lock at a moment agreed with the other
 * starters (busy-waiting to it, so they collide), for the race between processes that start
 * on a new file together. The lock is held until the round's end, so the others find it taken.
 * Configured by KYC_LOCK_STARTER (JSON); prints one line per round.
 */
import { sqliteDeliveryStore } from '../../src/index.js';

const { paths, firstAt, everyMs } = JSON.parse(process.env.KYC_LOCK_STARTER ?? '{}') as {
  paths: string[];
  firstAt: number;
  everyMs: number;
};
for (const [round, path] of paths.entries()) {
  const at = firstAt + round * everyMs;
  const store = sqliteDeliveryStore({ path });
  while (Date.now() < at) {
    // Spin to the agreed moment: a timer would spread the starters over a millisecond or more.
  }
  try {
    await store.acquireOwnership?.();
    process.stdout.write(`${round} ok\n`);
  } catch (error) {
    process.stdout.write(`${round} ${(error as { code?: string }).code}: ${(error as Error).message}\n`);
  }
  // Hold until the others have tried, then let go before the next round.
  while (Date.now() < at + everyMs * 0.8) await new Promise((resolve) => setTimeout(resolve, 5));
  await store.close();
}
