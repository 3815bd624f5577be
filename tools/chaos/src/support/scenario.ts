/** What every scenario of the chaos suite receives and returns. */

/** `ci`: a short run of every scenario, bounded to a few minutes in all; `full`: the published figures. */
export type Mode = 'ci' | 'full';

export interface RunContext {
  readonly mode: Mode;
  /** Seeded randomness: the seed is printed, so a failing run can be replayed with `--seed`. */
  readonly random: () => number;
  /** A private temporary directory for this scenario, removed afterwards. */
  readonly dir: string;
  /** A deliberately broken build to run instead of the real one (`--break <name>`), to show the scenario can fail. */
  readonly breakWith: string | undefined;
  /** Progress lines (stderr), so a long run shows it is alive. */
  progress(message: string): void;
}

/** Figures a scenario measured, in print order, and the invariants it found broken. */
export interface Outcome {
  readonly figures: ReadonlyArray<readonly [label: string, value: string | number]>;
  readonly failures: readonly string[];
}

export interface Scenario {
  /** Short name for `--only`. */
  readonly name: string;
  readonly title: string;
  /** Names accepted by `--break` for this scenario, each a broken build the scenario must catch. */
  readonly breaks?: readonly string[];
  /**
   * The verdict compares latencies, deadlines or throughput, which a second scenario on the same
   * cores would skew: `--jobs` runs it with nothing else running.
   */
  readonly alone?: boolean;
  run(context: RunContext): Promise<Outcome>;
}

/**
 * Collects invariant violations: the count per invariant and a few examples each, so one
 * systematic bug does not print ten thousand lines.
 */
export class Invariants {
  readonly #counts = new Map<string, number>();
  readonly #examples = new Map<string, string[]>();

  /** Records a violation of `invariant` unless `ok`; `example` names the case (an id, a value). */
  check(ok: boolean, invariant: string, example: () => string = () => ''): void {
    if (ok) return;
    this.#counts.set(invariant, (this.#counts.get(invariant) ?? 0) + 1);
    const examples = this.#examples.get(invariant) ?? [];
    if (examples.length < 3) examples.push(example());
    this.#examples.set(invariant, examples);
  }

  get failures(): string[] {
    return [...this.#counts].map(
      ([invariant, count]) =>
        `${invariant}: ${count} case${count === 1 ? '' : 's'} (e.g. ${(this.#examples.get(invariant) ?? []).filter(Boolean).join('; ') || '-'})`,
    );
  }
}
