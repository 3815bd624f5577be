import { accountingFigures, type OwnerRun, runOwner } from '../support/owner-run.js';
import { pause } from '../support/pause.js';
import { Invariants, type RunContext, type Scenario } from '../support/scenario.js';

const DEADLINE_MS = 1000;

async function untilInFlight(run: OwnerRun, count: number): Promise<number> {
  for (let waited = 0; waited < 5000 && run.inFlight() < count; waited += 10) await pause(10);
  return run.inFlight();
}

/**
 * The owner stopped (SIGSTOP) past its deadline while the receiver answers 200: the answers
 * arrive during the pause and wait in the socket. On SIGCONT the deadline's timer and the answer
 * are ready together; timers run first, and the 200s used to be recorded as timeouts (and sent
 * again). An answer that arrived before the deadline is what was answered.
 */
export const sigstop: Scenario = {
  name: 'sigstop',
  title: 'SQLite owner paused (SIGSTOP) past its deadline while its answers arrive',
  breaks: ['abort-at-deadline'],
  async run(context: RunContext) {
    const invariants = new Invariants();
    const pauses = context.mode === 'full' ? 10 : 3;
    const inFlightAtStop: number[] = [];
    const result = await runOwner({
      context,
      invariants,
      events: context.mode === 'full' ? 1500 : 400,
      receiverDelayMs: 100,
      worker: { deadlineMs: DEADLINE_MS, leaseMs: 1500 },
      breaks: {
        'abort-at-deadline': [
          {
            file: 'transport/create-transport.ts',
            search: '() => setImmediate(() => abort.abort(',
            replace: '() => (() => abort.abort(',
          },
        ],
      },
      async fault(run) {
        for (let n = 0; n < pauses; n++) {
          await pause(300);
          inFlightAtStop.push(await untilInFlight(run, 8));
          run.owner.child.kill('SIGSTOP');
          await pause(DEADLINE_MS * 2.5);
          run.owner.child.kill('SIGCONT');
        }
      },
    });
    const timeouts = result.records.flatMap((r) => r.attemptLog).filter((a) => a.outcome === 'timeout').length;
    invariants.check(
      timeouts === 0,
      'an answer that arrived during the pause was recorded as a timeout',
      () => `${timeouts}`,
    );
    return {
      figures: [
        ['pauses (SIGSTOP for 2.5 × the deadline, then SIGCONT)', pauses],
        ['attempts in flight at each SIGSTOP', inFlightAtStop.join(' / ')],
        ['attempts recorded as timeout', timeouts],
        ...accountingFigures(result),
      ],
      failures: invariants.failures,
    };
  },
};
