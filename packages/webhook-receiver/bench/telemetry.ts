import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median } from './median.js';

const ROUNDS = 5;
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
/** Node flags per case; the bench is bundled, so the files are the .mjs next to this one. */
const CASES = {
  'no @opentelemetry/api installed': ['--import', '@kyc/test-support/hide-opentelemetry'],
  '@opentelemetry/api, no SDK (default)': [],
  'SDK registered, in-memory exporters': ['--import', here('./register-telemetry.mjs')],
} as const;

/**
 * Issue 11: the receiver's per-request cost with OpenTelemetry absent, installed without an
 * SDK, and with an SDK registered. Each case in a fresh process (the first case cannot be had
 * in this one), interleaved over rounds; medians, as ratios to bare JSON.parse measured in the
 * same process.
 */
export function runTelemetry(): void {
  console.log(
    `\n## OpenTelemetry (receiver.receive of a new status-shape event, CPU ns/op, median of ${ROUNDS} rounds; ratio to JSON.parse)`,
  );
  const samples = new Map<string, { parse: number[]; receive: number[] }>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [label, flags] of Object.entries(CASES)) {
      const run = spawnSync(process.execPath, [...flags, here('./telemetry-process.mjs')], { encoding: 'utf8' });
      if (run.status !== 0) throw new Error(`${label}: the bench process failed: ${run.stderr}`);
      const result = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as { parse: number; receive: number };
      const entry = samples.get(label) ?? { parse: [], receive: [] };
      entry.parse.push(result.parse);
      entry.receive.push(result.receive);
      samples.set(label, entry);
    }
  }
  for (const [label, { parse, receive }] of samples) {
    const ns = median(receive);
    const ratios = receive.map((value, index) => value / (parse[index] ?? Number.NaN));
    const spread = `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`;
    console.log(
      `${label.padEnd(40)} ${ns.toFixed(0).padStart(7)} ns  ${median(ratios).toFixed(2).padStart(6)}× JSON.parse  (rounds ${spread})`,
    );
  }
}
