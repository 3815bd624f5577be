import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

interface FullFigures {
  readonly keys: number;
  readonly keyLength: number;
  readonly bytesPerKey: number;
  readonly rssEmptyMb: number;
  readonly rssFullMb: number;
}
interface FloodFigures {
  readonly rssEmptyMb: number;
  readonly rssQuarterMb: number;
  readonly heapQuarterMb: number;
  readonly rssAfterFloodMb: number;
  readonly heapAfterFloodMb: number;
}

/** Old-space cap of the flood run: the flood completes within it only if the store is bounded. */
const FLOOD_HEAP_CAP_MB = 32;

function measure<T>(mode: 'full' | 'flood'): T {
  // Without a cap V8 grows its heap lazily under allocation pressure (RSS then says little about the store).
  const cap = mode === 'flood' ? [`--max-old-space-size=${FLOOD_HEAP_CAP_MB}`] : [];
  const child = spawnSync(
    process.execPath,
    // Bundled next to this file by bench/run.mjs.
    ['--expose-gc', ...cap, fileURLToPath(new URL('./memory-process.mjs', import.meta.url)), mode],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  if (child.status !== 0) throw new Error(`memory bench (${mode}) exited with ${child.status}`);
  return JSON.parse(child.stdout) as T;
}

/** Bytes per remembered key and RSS of the memory idempotency store (child processes, --expose-gc). */
export function runMemory(): void {
  const full = measure<FullFigures>('full');
  const flood = measure<FloodFigures>('flood');
  const mb = (value: number) => `${value.toFixed(0)} MB`;
  console.log('\n## Memory idempotency store (fresh process each, after GC)');
  console.log(
    `${full.keys} keys of ${full.keyLength} characters remembered: ${full.bytesPerKey.toFixed(0)} B per key ` +
      `(heap + typed arrays, key string included), RSS ${mb(full.rssEmptyMb)} empty → ${mb(full.rssFullMb)}`,
  );
  console.log(
    `default bound (10 000 keys), flood of distinct events, old space capped at ${FLOOD_HEAP_CAP_MB} MB: RSS ${mb(flood.rssEmptyMb)} empty, ` +
      `${mb(flood.rssQuarterMb)} after ${full.keys / 4} (heap ${mb(flood.heapQuarterMb)}), ` +
      `${mb(flood.rssAfterFloodMb)} after ${full.keys} (heap ${mb(flood.heapAfterFloodMb)})`,
  );
}
