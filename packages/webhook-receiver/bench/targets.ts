import { median } from './median.js';

/** One of the targets, as the per-round ratios measured toward it. */
export interface TargetResult {
  readonly measure: string;
  /** One ratio per round, each from two figures of the same round. */
  readonly ratios: readonly number[];
  readonly target: number;
  readonly atLeast: boolean;
  /** CPU µs per request (or what the ratio is made of), to read beside it. */
  readonly detail: string;
}

const results: TargetResult[] = [];

/** Median and range of per-round ratios: "0.71× (0.66–0.74)". */
export function spread(values: readonly number[], digits = 2): string {
  if (values.length === 0) return 'n/a';
  const low = Math.min(...values).toFixed(digits);
  const high = Math.max(...values).toFixed(digits);
  return `${median(values).toFixed(digits)}× (${low}–${high})`;
}

/** Records a target's ratios for the summary at the end of the run. */
export function recordTarget(result: TargetResult): void {
  results.push(result);
}

/** Every target recorded in this run, with its median, range and whether the median meets it. */
export function printTargets(): void {
  if (results.length === 0) return;
  console.log('\n## Targets (issues 29 and 31): median of per-round ratios, (range), target');
  for (const { measure, ratios, target, atLeast, detail } of results) {
    const value = median(ratios);
    const met = atLeast ? value >= target : value <= target;
    console.log(
      `${measure.padEnd(62)} ${spread(ratios).padEnd(20)} ${atLeast ? '≥' : '≤'} ${target}× ${met ? 'met' : 'NOT met'}   ${detail}`,
    );
  }
}
