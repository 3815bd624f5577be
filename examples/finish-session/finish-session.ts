/**
 * Finish a KYC flow from your backend and read its details with `@kyc/client`. Finishing
 * triggers the completion webhook; the details are what the webhook's `detailsURL` returns.
 * Every error the client throws is a `KycError`; each class below says what your code does next.
 */
import {
  KycAbortError,
  KycApiError,
  KycAuthenticationError,
  KycClient,
  KycConnectionError,
  KycInvalidRequestError,
  KycNotFoundError,
  KycPermissionError,
  KycRateLimitError,
  KycResponseValidationError,
  KycServerError,
  KycTimeoutError,
  type SessionDetails,
} from '@kyc/client';

/** What happened, in the terms your code acts on. */
export type FinishOutcome =
  | { readonly ok: true; readonly details: SessionDetails }
  | {
      readonly ok: false;
      /** Try the same call again later: finishing is idempotent, a retry never sends a second webhook. */
      readonly retryLater: boolean;
      readonly reason:
        | 'unknown-session'
        | 'bad-credentials'
        | 'not-allowed'
        | 'rate-limited'
        | 'service-unavailable'
        | 'unexpected-response'
        | 'invalid-argument'
        | 'cancelled';
      /** Safe to log: the client never puts the password in a message. */
      readonly message: string;
      /** Quote it when you contact the operator. */
      readonly requestId?: string | undefined;
    };

/** Ends a flow (the service then sends the webhook) and returns its details. */
export async function finishSession(
  client: KycClient,
  sessionId: string,
  signal?: AbortSignal,
): Promise<FinishOutcome> {
  try {
    return { ok: true, details: await client.finishSession(sessionId, signal ? { signal } : {}) };
  } catch (error) {
    return explain(error);
  }
}

/** Reads the details of a flow, finished or not. */
export async function readSession(client: KycClient, sessionId: string): Promise<FinishOutcome> {
  try {
    return { ok: true, details: await client.getSession(sessionId) };
  } catch (error) {
    return explain(error);
  }
}

function explain(error: unknown): FinishOutcome & { ok: false } {
  const fail = (reason: (FinishOutcome & { ok: false })['reason'], retryLater: boolean) => ({
    ok: false as const,
    reason,
    retryLater,
    message: error instanceof Error ? error.message : String(error),
    requestId: error instanceof KycApiError ? error.requestId : undefined,
  });
  // Order matters: the specific API errors extend KycApiError.
  if (error instanceof KycNotFoundError) return fail('unknown-session', false);
  if (error instanceof KycAuthenticationError) return fail('bad-credentials', false);
  if (error instanceof KycPermissionError) return fail('not-allowed', false);
  // The client already waited out short Retry-After values; this one was too long to wait inline.
  if (error instanceof KycRateLimitError) return fail('rate-limited', true);
  if (error instanceof KycServerError || error instanceof KycTimeoutError || error instanceof KycConnectionError) {
    return fail('service-unavailable', true);
  }
  if (error instanceof KycResponseValidationError) return fail('unexpected-response', false);
  if (error instanceof KycInvalidRequestError) return fail('invalid-argument', false);
  if (error instanceof KycAbortError) return fail('cancelled', false);
  throw error;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [sessionId] = process.argv.slice(2);
  const { KYC_BASE_URL, KYC_USERNAME, KYC_PASSWORD } = process.env;
  if (!sessionId || !KYC_BASE_URL || !KYC_USERNAME || !KYC_PASSWORD) {
    throw new Error('Usage: KYC_BASE_URL=… KYC_USERNAME=… KYC_PASSWORD=… finish-session.ts <sessionId>');
  }
  const client = new KycClient({ baseUrl: KYC_BASE_URL, username: KYC_USERNAME, password: KYC_PASSWORD });
  const outcome = await finishSession(client, sessionId);
  if (outcome.ok)
    console.info(`${sessionId}: ${outcome.details.state}, total score ${outcome.details.scores?.total ?? 'n/a'}`);
  else
    console.error(`${sessionId}: ${outcome.reason}${outcome.retryLater ? ' (retry later)' : ''}: ${outcome.message}`);
  process.exitCode = outcome.ok ? 0 : 1;
}
