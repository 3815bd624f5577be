import { execFileSync, fork } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const WAITING = 100_000;
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

interface Memory {
  readonly rssMb: number;
  readonly heapMb: number;
  readonly timers: number;
  readonly pending: number;
}

async function measure(path: string): Promise<Memory> {
  const child = fork(here('./rss-process.mjs'), [path], { execArgv: ['--expose-gc'] });
  const [memory] = (await once(child, 'message')) as [Memory];
  await once(child, 'exit');
  return memory;
}

/**
 * RSS, heap and timers of an idle engine over an empty file, then over a file holding 100 000
 * deliveries waiting for a retry, each in a fresh process running the built package: the
 * engine keeps nothing per waiting delivery, so the two should differ by little.
 */
export async function rssSection(dir: string): Promise<void> {
  const empty = await measure(join(dir, 'rss-empty.db'));
  const path = join(dir, 'rss-waiting.db');
  execFileSync(process.execPath, ['--import', 'tsx', here('./rss-fill.ts'), path, String(WAITING)]);
  const full = await measure(path);
  if (full.pending === 0) throw new Error('the filled file holds no waiting delivery');
  console.log(
    `memory, idle engine (built package, fresh process): empty store RSS ${empty.rssMb.toFixed(1)} MB ` +
      `(heap ${empty.heapMb.toFixed(1)} MB, ${empty.timers} timers); ${WAITING} waiting deliveries RSS ` +
      `${full.rssMb.toFixed(1)} MB (heap ${full.heapMb.toFixed(1)} MB, ${full.timers} timers) (target ≤ 150 MB)`,
  );
}
