import type { LanesSnapshot } from '@kyc/delivery-engine';

/** How the company's endpoint answers right now, as the engine's lanes see it. */
export interface EndpointPace {
  /** `hangs`: no answer, or a timeout; `slow`: answers, but late; `prompt`: answers promptly; `unknown`: no endpoint or no attempt yet. */
  readonly state: 'prompt' | 'slow' | 'hangs' | 'unknown';
  readonly message: string;
  /** Attempts waiting on the endpoint now. */
  readonly inFlight: number;
  /** How long the oldest of them has waited, in ms (0 when none). */
  readonly oldestAttemptMs: number;
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/**
 * The pace line of the health page: whether the engine counts the company's endpoint as slow (it
 * hung or answered after `slowAfterMs`), and what that means for the company. Other companies'
 * endpoints never appear here: the line is about the caller's own origin.
 */
export function endpointPace(
  url: string | undefined,
  lanes: LanesSnapshot | undefined,
  deadlineMs: number,
): EndpointPace {
  const origin = url === undefined ? undefined : URL.parse(url)?.origin;
  if (origin === undefined || lanes === undefined) {
    return { state: 'unknown', message: 'No attempt to judge yet.', inFlight: 0, oldestAttemptMs: 0 };
  }
  const slow = lanes.slowOrigins.find((entry) => entry.origin === origin);
  if (slow === undefined) {
    return { state: 'prompt', message: 'Your endpoint answers promptly.', inFlight: 0, oldestAttemptMs: 0 };
  }
  const waiting =
    slow.inFlight === 0
      ? ''
      : ` ${slow.inFlight} ${slow.inFlight === 1 ? 'attempt is' : 'attempts are'} waiting on it now, the oldest for ${seconds(slow.oldestAttemptMs)}.`;
  const queue =
    ' Until it answers promptly again, your deliveries wait for each other; other companies’ deliveries never wait for yours.';
  const pace = { inFlight: slow.inFlight, oldestAttemptMs: slow.oldestAttemptMs };
  if (slow.reason === 'slow_answer') {
    return {
      state: 'slow',
      message: `Your endpoint answers slowly: it answers, within the ${seconds(deadlineMs)} limit, but late.${waiting} Answer 200 at once and move slow work to a background job.${queue}`,
      ...pace,
    };
  }
  return {
    state: 'hangs',
    message: `Your endpoint hangs: attempts time out after ${seconds(deadlineMs)}.${waiting} Answer HTTP 200 within ${seconds(deadlineMs)} and move slow work to a background job (each timed-out attempt is retried 1, 5 and 15 minutes later).${queue}`,
    ...pace,
  };
}
