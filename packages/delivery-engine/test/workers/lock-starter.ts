/**
 * Opens one SQLite store per round and takes its lock at a moment agreed with the other
 * starters (busy-waiting to it, so they collide), for the race between processes that start
 * on a new file together. The lock is held until the round's end, so the others find it taken.
 * Configured by KYC_LOCK_STARTER (JSON); prints one line per round, an owner's with the
 * moments (epoch ms) it held the lock from and until.
 */
import { sqliteDeliveryStore } from '@kyc/delivery-engine';

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
  let line: string;
  let heldFrom: number | undefined;
  try {
    await store.acquireOwnership?.();
    heldFrom = Date.now();
    line = `${round} ok`;
  } catch (error) {
    line = `${round} ${(error as { code?: string }).code}: ${(error as Error).message}`;
  }
  // Hold until the others have tried, then let go before the next round.
  while (Date.now() < at + everyMs * 0.8) await new Promise((resolve) => setTimeout(resolve, 5));
  await store.close();
  process.stdout.write(heldFrom === undefined ? `${line}\n` : `${line} ${heldFrom} ${Date.now()}\n`);
}
