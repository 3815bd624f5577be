import { accountingFigures, type OwnerRun, runOwner } from '../support/owner-run.js';
import { pause } from '../support/pause.js';
import { Invariants, type RunContext, type Scenario } from '../support/scenario.js';

const HOUR = 3_600_000;

/** Waits until the receiver holds at least `count` attempts (bounded), so a step finds them in flight. */
async function untilInFlight(run: OwnerRun, count: number): Promise<number> {
  for (let waited = 0; waited < 5000 && run.inFlight() < count; waited += 10) await pause(10);
  return run.inFlight();
}

/**
 * The SQLite owner's wall clock steps while attempts are in flight (an NTP correction, a VM
 * resumed): back an hour, forward again, then an hour ahead. Its claims are notes of the owning
 * process that only a recorded result or a release ends, and what it holds for a predecessor is
 * timed on the monotonic clock, so no step may make it send a delivery it is still sending.
 * Before the fix, 12 of 16 attempts in flight were sent again 3 s after a +60 s step.
 */
export const clockStep: Scenario = {
  name: 'clock-step',
  title: 'SQLite owner: the wall clock steps ±1 h with attempts in flight',
  breaks: ['wall-clock-leases'],
  async run(context: RunContext) {
    const invariants = new Invariants();
    const inFlightAtStep: number[] = [];
    const result = await runOwner({
      context,
      invariants,
      events: context.mode === 'full' ? 4000 : 600,
      receiverDelayMs: 300,
      worker: { clockSteps: [-HOUR, HOUR, HOUR] },
      breaks: {
        // The old design: a claim is a lease timed on the engine's (wall) clock.
        'wall-clock-leases': [
          {
            file: 'store/sqlite/owner-store.ts',
            search: 'const elapsed = r.elapsed ?? r.now;',
            replace: 'const elapsed = r.now;',
          },
          {
            file: 'store/sqlite/reservations.ts',
            search: '    this.#inherited.delete(row.id);\n',
            replace:
              '    this.#inherited.set(row.id, { origin: row.origin, attempts: row.attempts, until: undefined });\n',
          },
          {
            file: 'store/sqlite/reservations.ts',
            search: 'return this.#byId.has(id) || this.#inherited.has(id);',
            replace: 'return this.#inherited.has(id);',
          },
          {
            file: 'store/sqlite/reservations.ts',
            search: 'return [...this.#byId.keys(), ...this.#inherited.keys()];',
            replace: 'return [...this.#inherited.keys()];',
          },
        ],
      },
      async fault(run) {
        // Events enqueued while the clock is behind are due by any later clock; the run ends an
        // hour ahead, so nothing waits for the clock to catch up.
        for (let step = 0; step < 3; step++) {
          await pause(800);
          inFlightAtStep.push(await untilInFlight(run, 8));
          run.owner.child.kill('SIGUSR2');
        }
      },
    });
    const steps = result.lines.filter((line) => line.startsWith('stepped ')).length;
    invariants.check(steps === 3, 'the clock did not step three times: the scenario tested nothing', () => `${steps}`);
    return {
      figures: [
        ['steps of the engine clock', '−1 h, +1 h (back), +1 h (ahead); the monotonic clock untouched'],
        ['attempts in flight at each step', inFlightAtStep.join(' / ')],
        ...accountingFigures(result),
      ],
      failures: invariants.failures,
    };
  },
};
