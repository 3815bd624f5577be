import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MODES = {
  absent: 'no @opentelemetry/api installed',
  api: '@opentelemetry/api, no SDK (default)',
  sdk: 'SDK registered, in-memory exporters',
} as const;
type Mode = keyof typeof MODES;

export interface TelemetryComparisonOptions {
  readonly url: string;
  readonly ca: string;
  readonly body: string;
  /** A directory for the SQLite files. */
  readonly dir: string;
  readonly events: number;
  readonly concurrency: number;
  readonly rounds: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function runOnce(mode: Mode, round: number, options: TelemetryComparisonOptions) {
  const hide = mode === 'absent' ? ['--import', '@kyc/test-support/hide-opentelemetry'] : [];
  const child: ChildProcess = fork(fileURLToPath(new URL('./telemetry-process.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx', ...hide],
    env: {
      ...process.env,
      KYC_BENCH_TELEMETRY: JSON.stringify({
        ...options,
        mode,
        path: join(options.dir, `telemetry-${mode}-${round}.db`),
      }),
    },
  });
  const [reply] = (await once(child, 'message')) as [{ rate: number; cpuUs: number; spans?: number }];
  await once(child, 'exit');
  return reply;
}

/**
 * The engine's SQLite deliveries/s with OpenTelemetry absent, present without an SDK, and with
 * an SDK registered: the same run in a fresh process per case, the cases interleaved round by
 * round in a rotating order so that a noisy neighbour hits all three alike; medians, as ratios
 * to the first. Also the CPU each delivery costs, as per-round ratios: steadier than the rates
 * when the machine is shared.
 */
export async function compareTelemetry(options: TelemetryComparisonOptions): Promise<void> {
  const rates: Record<Mode, number[]> = { absent: [], api: [], sdk: [] };
  const cpu: Record<Mode, number[]> = { absent: [], api: [], sdk: [] };
  let spans = 0;
  const modes = Object.keys(MODES) as Mode[];
  for (let round = 0; round < options.rounds; round++) {
    // A rotating order, so that no case always runs first (or right after the heaviest one).
    for (const [index] of modes.entries()) {
      const mode = modes[(index + round) % modes.length] ?? 'absent';
      const reply = await runOnce(mode, round, options);
      rates[mode].push(reply.rate);
      cpu[mode].push(reply.cpuUs);
      spans = reply.spans ?? spans;
    }
  }
  const base = median(rates.absent);
  const spread = (values: number[], digits: number) =>
    `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
  for (const [mode, label] of Object.entries(MODES) as [Mode, string][]) {
    const rate = median(rates[mode]);
    console.log(
      `engine, SQLite, ${label.padEnd(38)} ${rate.toFixed(0).padStart(7)} /s  = ${(rate / base).toFixed(2)}×  (rounds ${spread(rates[mode], 0)})`,
    );
  }
  // CPU per delivery, each case divided by the no-API run of the same round: the figure to read
  // on a loaded machine, where the wall-clock rates above swing with the neighbours.
  for (const [mode, label] of Object.entries(MODES) as [Mode, string][]) {
    const ratios = cpu[mode].map((value, round) => value / (cpu.absent[round] ?? Number.NaN));
    console.log(
      `engine CPU per event (enqueue + delivery), ${label.padEnd(38)} ${median(cpu[mode]).toFixed(0).padStart(7)} µs = ${median(ratios).toFixed(2)}× no API  (rounds ${spread(ratios, 2)})`,
    );
  }
  console.log(`  (the SDK run exported ${spans} spans for ${options.events} deliveries)`);
}
