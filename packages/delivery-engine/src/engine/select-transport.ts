import { RESPONSE_SNIPPET_MAX_BYTES } from '@kyc/contracts';
import type { DeliveryClaim } from '../store/store.js';
import type { Transport } from '../transport/create-transport.js';
import { outcomeOfStatus } from '../transport/outcome.js';
import { redactSecrets } from '../transport/redact-secrets.js';
import type { AttemptOutcome, AttemptRequest, AttemptResult, OutgoingRequest } from '../transport/types.js';

/** What `selectTransport` is told about the attempt the engine is about to send. */
export interface AttemptTarget {
  /** The event id (Webhook-Id). */
  readonly deliveryId: string;
  /** The `companyId` the event was enqueued with, if any. */
  readonly companyId: string | undefined;
  /** The URL the event was enqueued with (what the engine's own transport would dial). */
  readonly url: string;
  /** The attempt number over every round (the Webhook-Attempt header). */
  readonly attempt: number;
}

/**
 * Picks another {@link Transport} for one attempt (e.g. a tunnel to a developer's laptop), or
 * `undefined` to send it to the delivery's URL as usual. Called once per attempt, synchronously,
 * right before it is sent.
 */
export type SelectTransport = (target: AttemptTarget) => Transport | undefined;

/** The part of a claim a send may look at. */
export type SendTarget = Pick<DeliveryClaim, 'id' | 'companyId' | 'url' | 'attempts'>;

/** Sends one attempt; never throws. */
export type TargetedSend = (
  request: OutgoingRequest,
  signal: AbortSignal,
  target: SendTarget,
) => Promise<AttemptResult>;

/** Outcomes that carry no HTTP status: a selected transport may report these as they are. */
const FAILURES_WITHOUT_STATUS: ReadonlySet<string> = new Set<AttemptOutcome>([
  'timeout',
  'dns_error',
  'connect_error',
  'tls_error',
  'connection_reset',
  'blocked_address',
  'invalid_url',
]);
const MAX_MESSAGE_CHARS = 2000;
const MAX_ADDRESS_CHARS = 100;
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: false });

function capBytes(text: string, max: number): string {
  const bytes = encoder.encode(text);
  return bytes.byteLength <= max ? text : decoder.decode(bytes.subarray(0, max));
}

/**
 * Holds a selected transport's report to the engine's own rules, whatever the transport
 * claims: the outcome of a status is recomputed (only exactly 200 is `delivered`), a failure
 * it names wins over a status it saw, anything else is a `connection_reset`; the snippet is
 * capped like the engine's own and, with the error message, cleared of the Auth Key.
 */
function holdToRules(reported: unknown, request: AttemptRequest, elapsedMs: number): AttemptResult {
  const redact = (text: string) => redactSecrets(request.headers, text);
  if (typeof reported !== 'object' || reported === null) {
    return {
      outcome: 'connection_reset',
      latencyMs: elapsedMs,
      errorMessage: 'the selected transport reported nothing',
    };
  }
  const r = reported as Partial<Record<keyof AttemptResult, unknown>>;
  const status =
    typeof r.status === 'number' && Number.isInteger(r.status) && r.status >= 100 && r.status <= 599
      ? r.status
      : undefined;
  const failure = typeof r.outcome === 'string' && FAILURES_WITHOUT_STATUS.has(r.outcome);
  let outcome: AttemptOutcome;
  let errorMessage =
    typeof r.errorMessage === 'string' ? redact(r.errorMessage.slice(0, MAX_MESSAGE_CHARS)) : undefined;
  if (failure) outcome = r.outcome as AttemptOutcome;
  else if (status !== undefined) outcome = outcomeOfStatus(status);
  else {
    outcome = 'connection_reset';
    errorMessage ??= 'the selected transport reported neither a status nor a known failure';
  }
  const latencyMs =
    typeof r.latencyMs === 'number' && r.latencyMs >= 0 && r.latencyMs <= elapsedMs ? r.latencyMs : elapsedMs;
  return {
    outcome,
    ...(status === undefined ? {} : { status }),
    ...(typeof r.dialedAddress === 'string' ? { dialedAddress: r.dialedAddress.slice(0, MAX_ADDRESS_CHARS) } : {}),
    latencyMs,
    ...(typeof r.responseSnippet === 'string'
      ? { responseSnippet: redact(capBytes(r.responseSnippet, RESPONSE_SNIPPET_MAX_BYTES)) }
      : {}),
    ...(errorMessage === undefined ? {} : { errorMessage }),
  };
}

/**
 * Sends through a selected transport within the engine's deadline: no report in time is a
 * `timeout`, and a stop of the engine a `timeout` too (which the engine then releases, as it
 * does for its own transport). A transport that throws is a `connection_reset`. The
 * transport's signal fires in both cases, so it can give the attempt up.
 */
async function sendWithin(
  transport: Transport,
  request: AttemptRequest,
  stop: AbortSignal,
  deadlineMs: number,
): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const controller = new AbortController();
  let cut: (result: AttemptResult) => void = () => undefined;
  const cutShort = new Promise<AttemptResult>((resolve) => {
    cut = resolve;
  });
  const give = (errorMessage: string) => {
    controller.abort(new Error(errorMessage));
    cut({ outcome: 'timeout', latencyMs: elapsed(), errorMessage });
  };
  const timer = setTimeout(() => give(`no report from the selected transport within ${deadlineMs} ms`), deadlineMs);
  const onStop = () => give('attempt aborted: the engine is stopping');
  if (stop.aborted) onStop();
  else stop.addEventListener('abort', onStop, { once: true });
  try {
    const sent = Promise.resolve()
      .then(() => transport.send(request, controller.signal))
      .then(
        (reported) => holdToRules(reported, request, elapsed()),
        (error: unknown) =>
          holdToRules(
            {
              outcome: 'connection_reset',
              errorMessage: `the selected transport failed: ${error instanceof Error ? error.message : String(error)}`,
            },
            request,
            elapsed(),
          ),
      );
    return await Promise.race([sent, cutShort]);
  } finally {
    clearTimeout(timer);
    stop.removeEventListener('abort', onStop);
  }
}

/**
 * Wraps the engine's own send so that `select` may hand an attempt to another transport; the
 * attempt keeps every rule of the engine (deadline, 200-only, redaction) and is recorded,
 * scheduled and retried like any other. A `select` that throws is logged and the attempt goes
 * to the delivery's URL.
 */
export function selectingSend(
  own: TargetedSend,
  select: SelectTransport,
  deadlineMs: number,
  warn: (message: string, fields: Readonly<Record<string, unknown>>) => void,
): TargetedSend {
  return (request, signal, target) => {
    let chosen: Transport | undefined;
    try {
      chosen = select({
        deliveryId: target.id,
        companyId: target.companyId,
        url: target.url,
        attempt: target.attempts + 1,
      });
    } catch (error) {
      warn('selectTransport threw; the attempt goes to the delivery URL', {
        deliveryId: target.id,
        error: error instanceof Error ? error.message : String(error),
      });
    }
    if (chosen === undefined || chosen === null) return own(request, signal, target);
    if (typeof chosen.send !== 'function') {
      warn('selectTransport returned something without send(); the attempt goes to the delivery URL', {
        deliveryId: target.id,
      });
      return own(request, signal, target);
    }
    // A selected transport is user code written against `AttemptRequest`: its body is a string.
    const body = typeof request.body === 'string' ? request.body : decoder.decode(request.body);
    return sendWithin(chosen, { url: request.url, headers: request.headers, body }, signal, deadlineMs);
  };
}
