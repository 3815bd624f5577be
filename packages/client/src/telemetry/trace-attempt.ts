import { type AttemptSpan, attemptErrorType } from './client-telemetry.js';

/**
 * Settles like `attempt` and ends its span exactly once: with the response, with the failure,
 * or, first of all, the moment the attempt's `signal` aborts.
 *
 * The abort has to end it: ky aborts a timed-out attempt's signal and rejects with its
 * `TimeoutError` in the same tick, without waiting for the runtime's fetch to reject, so the
 * caller's `catch` can run before that rejection arrives (always on Deno, under load on Node).
 * A span ended only then would still be open when the call has failed, and land in whatever
 * batch the exporter sends next.
 *
 * @param callerAborted - whether the caller's own signal did it (`aborted`, else `timeout`).
 * @example
 * return traceAttempt(span, request.signal, fetch(request), () => userSignal?.aborted === true);
 */
export function traceAttempt(
  span: AttemptSpan,
  signal: AbortSignal,
  attempt: Promise<Response>,
  callerAborted: () => boolean,
): Promise<Response> {
  let open = true;
  const close = (response: Response | undefined, error?: unknown) => {
    if (!open) return;
    open = false;
    signal.removeEventListener('abort', onAbort);
    if (response) span.end(response);
    else span.fail(attemptErrorType(error, callerAborted()));
  };
  const onAbort = () => close(undefined, signal.reason);
  // ky never starts an attempt on an aborted signal; if one did, its fetch rejects at once.
  signal.addEventListener('abort', onAbort);
  return attempt.then(
    (response) => {
      close(response);
      return response;
    },
    (error: unknown) => {
      close(undefined, error);
      throw error;
    },
  );
}
