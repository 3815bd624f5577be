import {
  apiErrorBodyMiniSchema,
  HEADERS,
  type SessionDetails,
  sessionDetailsMiniSchema,
} from '@kyc/contracts/service-api';
import { describeIssue } from './describe-issue.js';
import { createApiError, type KycError, type KycRequestInfo, KycResponseValidationError } from './errors.js';
import type { Scrubber } from './redact.js';
import { exceedsRetryAfterCap, isRetryableStatus, MAX_RETRY_AFTER_SECONDS, parseRetryAfterMs } from './retry-policy.js';

// Enough of a non-JSON error page (a proxy's HTML) to recognise it, not enough to flood logs.
const ERROR_TEXT_MAX_CHARS = 2048;

/** How the loop should treat a failed response. */
export interface FailedResponse {
  readonly error: KycError;
  /** True when another attempt may succeed (408, 429, 500, 502, 503, 504 within the cap). */
  readonly retryable: boolean;
  /** The wait `Retry-After` asked for, when the service sent a readable one. */
  readonly retryAfterMs: number | undefined;
}

/** A finished exchange: the status line, headers and the whole body text. */
export interface Exchange {
  readonly response: Response;
  readonly text: string;
  readonly request: KycRequestInfo;
}

/**
 * Turns a 2xx body into session details, validated by the `@kyc/contracts` schema (unknown
 * properties kept), or throws {@link KycResponseValidationError}.
 */
export function readSessionDetails({ response, text, request }: Exchange, scrub: Scrubber): SessionDetails {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // The request id is read (and scrubbed) only for an error: a 2xx that parses never needs it.
    const requestId = readRequestId(response, scrub);
    // JSON.parse's SyntaxError quotes the start of the body, which may be personal data or an
    // echoed credential, so it is not attached as the cause; the length is enough to debug.
    throw new KycResponseValidationError(
      `KYC API answered ${response.status} with a body that is not JSON (${text.length} characters; ${describe(request, requestId)})`,
      { reason: 'invalid_json', status: response.status, requestId, request },
    );
  }
  const parsed = sessionDetailsMiniSchema.safeParse(json, { error: describeIssue });
  if (parsed.success) return parsed.data;
  const requestId = readRequestId(response, scrub);
  const where = parsed.error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
  throw new KycResponseValidationError(
    `KYC API answered ${response.status} with session details that do not match the contract: ${where} (${describe(request, requestId)})`,
    { reason: 'schema_mismatch', status: response.status, requestId, request, issues: parsed.error.issues },
  );
}

/**
 * Turns a non-2xx response into the fitting {@link KycApiError} subclass and says whether it is
 * worth retrying. Service text is scrubbed of the credentials before it reaches the error.
 */
export function readFailure({ response, text, request }: Exchange, scrub: Scrubber, nowMs: number): FailedResponse {
  const { status } = response;
  const requestId = readRequestId(response, scrub);
  const retryAfterMs = parseRetryAfterMs(response.headers.get(HEADERS.retryAfter), nowMs);
  const body = scrub(parseErrorBody(text));
  const shaped = apiErrorBodyMiniSchema.safeParse(body);
  const code = shaped.success ? shaped.data.error.code : undefined;
  const detail = shaped.success ? `${code}: ${shaped.data.error.message}` : statusDetail(response);
  const retryable = isRetryableStatus(status);
  const overCap = retryAfterMs !== undefined && exceedsRetryAfterCap(retryAfterMs);
  // Say why a retryable answer was not retried, so nobody wonders where the retries went.
  const capNote =
    retryable && overCap
      ? `; Retry-After asked for ${Math.ceil(retryAfterMs / 1000)} s, more than the ${MAX_RETRY_AFTER_SECONDS} s the client waits, so it was not retried`
      : '';
  const error = createApiError(`KYC API answered ${status} ${detail} (${describe(request, requestId)})${capNote}`, {
    status,
    code,
    requestId,
    body,
    request,
    retryAfterMs,
  });
  return { error, retryable: retryable && !overCap, retryAfterMs };
}

// Even a header can echo what it was sent.
function readRequestId(response: Response, scrub: Scrubber): string | undefined {
  const value = response.headers.get(HEADERS.requestId);
  return value === null ? undefined : scrub(value);
}

function parseErrorBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text.length > ERROR_TEXT_MAX_CHARS ? `${text.slice(0, ERROR_TEXT_MAX_CHARS)}…` : text;
  }
}

function statusDetail(response: Response): string {
  // `redirect: 'manual'` yields the 3xx itself (Node) or an opaque status-0 response (browsers).
  if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
    return 'a redirect, which the client does not follow (check baseUrl)';
  }
  return 'without the service error shape';
}

function describe(request: KycRequestInfo, requestId: string | undefined): string {
  return `${request.method} ${request.url}${requestId === undefined ? '' : `, request id ${requestId}`}`;
}
