/**
 * The SQLite section of `pnpm bench` (issue 20): the bare undici ceiling, the hand-written
 * sender at synchronous=NORMAL and FULL, and the engine at durability process-crash and
 * power-loss, taking turns round after round; each line prints the median and range of its
 * rounds, with the sender's CPU per delivery and the receiver's slot turnaround, and each ratio
 * is the median of the per-round ratios.
 */

import { bareUndici, engine, handWritten, type SenderContext, type SenderRun } from './sqlite-senders.js';
import { median, range } from './stats.js';

const LINES = {
  ceiling: 'bare undici request loop (the ceiling)',
  hand: 'hand-written: undici + 1 better-sqlite3 txn per delivery, synchronous=NORMAL',
  engine: "engine, SQLite, durability 'process-crash'",
  handFull: 'hand-written at synchronous=FULL (one fsync per delivery)',
  enginePowerLoss: "engine, SQLite, durability 'power-loss' (one fsync per group commit)",
} as const;
type Line = keyof typeof LINES;

export async function sqliteSection(context: SenderContext, rounds: number): Promise<void> {
  console.log(
    `\n## SQLite: ${context.events} deliveries per run, ${context.concurrency} in flight, ${rounds} interleaved rounds (median [range]); ` +
      'CPU = the sender process, µs per delivery; turnaround = an answer leaving the receiver → the next request arriving',
  );
  // Unmeasured warm-up: JIT compilation and TLS sessions would flatter whichever line runs second.
  await bareUndici(context, 2000);
  await engine({ ...context, events: 2000 }, 'process-crash', 'warm');
  await handWritten({ ...context, events: 2000 }, 'NORMAL', 'warm');
  const runs: Record<Line, SenderRun[]> = { ceiling: [], hand: [], engine: [], handFull: [], enginePowerLoss: [] };
  for (let round = 0; round < rounds; round++) {
    runs.ceiling.push(await bareUndici(context));
    runs.hand.push(await handWritten(context, 'NORMAL', `n${round}`));
    runs.engine.push(await engine(context, 'process-crash', `pc${round}`));
    runs.handFull.push(await handWritten(context, 'FULL', `f${round}`));
    runs.enginePowerLoss.push(await engine(context, 'power-loss', `pl${round}`));
  }
  for (const [line, label] of Object.entries(LINES) as [Line, string][]) {
    const rates = runs[line].map((run) => run.rate);
    const cpu = runs[line].map((run) => run.cpuUsPerDelivery);
    const p50 = runs[line].map((run) => run.turnaround.p50);
    const p99 = runs[line].map((run) => run.turnaround.p99);
    console.log(
      `${label.padEnd(76)} ${median(rates).toFixed(0).padStart(6)}/s [${range(rates, 0)}]  ` +
        `CPU ${median(cpu).toFixed(0)} µs [${range(cpu, 0)}]  turnaround p50 ${median(p50).toFixed(2)} ms, p99 ${median(p99).toFixed(2)} ms`,
    );
  }
  const ratio = (top: Line, bottom: Line, target: number, what: string) => {
    const ratios = runs[top].map((run, round) => run.rate / (runs[bottom][round]?.rate ?? Number.NaN));
    const verdict = median(ratios) >= target ? 'met' : 'NOT met';
    console.log(
      `→ ${what}: ${median(ratios).toFixed(2)}× [${range(ratios, 2)}] (target ≥ ${target}×: ${verdict}; ` +
        `≥ target in ${ratios.filter((r) => r >= target).length} of ${ratios.length} rounds)`,
    );
  };
  ratio('engine', 'hand', 1.5, 'engine ÷ hand-written sender');
  ratio('engine', 'ceiling', 0.5, 'engine ÷ bare undici ceiling');
  ratio('enginePowerLoss', 'handFull', 2, "engine 'power-loss' ÷ hand-written at synchronous=FULL");
  const cpu = runs.engine.map((run) => run.cpuUsPerDelivery);
  console.log(`→ engine CPU per delivery: ${median(cpu).toFixed(0)} µs [${range(cpu, 0)}] (target ≤ 60 µs)`);
}
