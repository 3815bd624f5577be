import { accountingFigures, type OwnerRun, runOwner } from '../support/owner-run.js';
import { pause } from '../support/pause.js';
import { Invariants, type RunContext, type Scenario } from '../support/scenario.js';

const DEADLINE_MS = 1000;
const ANSWER_DELAY_MS = 100;
const PAUSE_MS = DEADLINE_MS * 2.5;
/** Engine time runs 60× fast, so the retry after a real timeout comes 1 s later, not a minute. */
const FACTOR = 60;

async function untilInFlight(run: OwnerRun, count: number): Promise<number> {
  for (let waited = 0; waited < 5000 && run.inFlight() < count; waited += 10) await pause(10);
  return run.inFlight();
}

/**
 * The owner paused past its deadline while the receiver answers 200: the answers arrive during
 * the pause and wait in the socket. Two pauses, alternately: SIGSTOP (the process frozen from
 * outside, a VM suspended) and a synchronous block of the event loop (a long garbage collection,
 * a synchronous call). On resume the deadline's timer and the answer are ready together; the
 * answer is read and recorded as what it was (a 200 recorded as a timeout would be sent again).
 *
 * A request that was still on its way out when the pause began (a connection being opened)
 * reaches the receiver only after it, and its answer really comes after the deadline: that
 * timeout, and its retry, are what the protocol asks for, and are told apart by when the
 * receiver got the request.
 */
export const sigstop: Scenario = {
  name: 'sigstop',
  title: 'SQLite owner paused past its deadline (SIGSTOP, a blocked event loop) while its answers arrive',
  breaks: ['deadline-by-latency'],
  // Answers 100 ms against a 1 s deadline: a scenario beside it could push one past the deadline.
  alone: true,
  async run(context: RunContext) {
    const invariants = new Invariants();
    const rounds = context.mode === 'full' ? 10 : 4;
    const windows: { from: number; to: number; kind: string; inFlight: number }[] = [];
    const result = await runOwner({
      context,
      invariants,
      events: context.mode === 'full' ? 1500 : 400,
      receiverDelayMs: ANSWER_DELAY_MS,
      expectOnce: false,
      worker: {
        deadlineMs: DEADLINE_MS,
        timeScale: { factor: FACTOR, anchor: Date.now() },
        leaseMs: 1500 * FACTOR,
        pollIntervalMs: 100 * FACTOR,
        freezeMs: PAUSE_MS,
      },
      breaks: {
        // The deadline judged after the fact on the measured latency, which a pause inflates:
        // every answer read after the pause would count as a timeout and be sent again.
        'deadline-by-latency': [
          {
            file: 'transport/own-transport.ts',
            search: '        outcome: outcomeOfStatus(status),\n',
            replace: "        outcome: elapsed() > deadlineMs ? 'timeout' : outcomeOfStatus(status),\n",
          },
        ],
      },
      async fault(run) {
        for (let n = 0; n < rounds; n++) {
          await pause(300);
          const inFlight = await untilInFlight(run, 8);
          const from = Date.now();
          if (n % 2 === 0) {
            run.owner.child.kill('SIGSTOP');
            await pause(PAUSE_MS);
            run.owner.child.kill('SIGCONT');
          } else {
            run.owner.child.kill('SIGUSR1');
            await pause(PAUSE_MS);
          }
          windows.push({ from, to: Date.now(), kind: n % 2 === 0 ? 'SIGSTOP' : 'blocked loop', inFlight });
        }
      },
    });
    // A timeout is real only for a request the receiver got after a pause began (its answer came
    // after the process could no longer have met the deadline); one it got before came back in
    // 100 ms, well before its 1 s deadline.
    const arrivedInPause = (at: number) => windows.some((w) => at >= w.from && at <= w.to + 200);
    const arrival = new Map(result.receipts.map((r) => [`${r.id} ${r.attempt}`, r.at]));
    let realTimeouts = 0;
    let answeredButTimedOut = 0;
    for (const record of result.records) {
      for (const attempt of record.attemptLog.filter((a) => a.outcome === 'timeout')) {
        const at = arrival.get(`${record.id} ${attempt.attempt}`);
        if (at !== undefined && !arrivedInPause(at)) answeredButTimedOut++;
        else realTimeouts++;
      }
    }
    invariants.check(
      answeredButTimedOut === 0,
      'an answer that arrived before the deadline was recorded as a timeout',
      () => `${answeredButTimedOut}`,
    );
    const resentWithoutTimeout = result.twice.filter(
      (id) => !result.records.find((r) => r.id === id)?.attemptLog.some((a) => a.outcome === 'timeout'),
    );
    invariants.check(resentWithoutTimeout.length === 0, 'sent more than once without a timeout before it', () =>
      resentWithoutTimeout.slice(0, 3).join(', '),
    );
    return {
      figures: [
        ['pauses of 2.5 × the deadline (SIGSTOP / blocked loop)', windows.map((w) => w.kind).join(', ')],
        ['attempts in flight at each pause', windows.map((w) => w.inFlight).join(' / ')],
        ['answers arrived before the deadline, recorded as a timeout', answeredButTimedOut],
        ['timeouts of requests that reached the receiver only after a pause began', realTimeouts],
        ...accountingFigures(result),
      ],
      failures: invariants.failures,
    };
  },
};
