import { KycError, type KycErrorOptions } from './kyc-error.js';

/** What the service answered, as read from a non-2xx response. */
export interface KycApiErrorInit extends KycErrorOptions {
  /** HTTP status of the response. */
  readonly status: number;
  /** `error.code` of the body when it has the service's error shape. */
  readonly code?: string | undefined;
  /** The service's request id header (X-Request-Id), to quote when contacting support. */
  readonly requestId?: string | undefined;
  /** The parsed JSON body, or the (capped) text when it was not JSON; secrets scrubbed. */
  readonly body?: unknown;
}

/**
 * The service answered with an error status. Subclasses name the common ones; any other
 * status (400, 422, an unexpected 3xx) is a plain `KycApiError`.
 *
 * @example
 * catch (error) {
 *   if (error instanceof KycApiError) console.warn(error.status, error.code, error.requestId);
 * }
 */
export class KycApiError extends KycError {
  override readonly name: string = 'KycApiError';
  readonly status: number;
  readonly code: string | undefined;
  readonly requestId: string | undefined;
  readonly body: unknown;

  constructor(message: string, init: KycApiErrorInit) {
    super(message, init);
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.body = init.body;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), status: this.status, code: this.code, requestId: this.requestId, body: this.body };
  }
}

/** 401: the username or password was not accepted. */
export class KycAuthenticationError extends KycApiError {
  override readonly name: string = 'KycAuthenticationError';
}

/** 403: the credentials are valid but may not do this. */
export class KycPermissionError extends KycApiError {
  override readonly name: string = 'KycPermissionError';
}

/** 404: no such session (or route). */
export class KycNotFoundError extends KycApiError {
  override readonly name: string = 'KycNotFoundError';
}

/** 409: the request conflicts with the session's state. */
export class KycConflictError extends KycApiError {
  override readonly name: string = 'KycConflictError';
}

/** What a 429 carries beyond {@link KycApiErrorInit}. */
export interface KycRateLimitErrorInit extends KycApiErrorInit {
  /** The wait the service asked for via `Retry-After`, in milliseconds, when it sent one. */
  readonly retryAfterMs?: number | undefined;
}

/**
 * 429: too many requests. Thrown after the retries are spent, or at once when `Retry-After`
 * asks for a longer wait than the client is willing to make (60 s).
 */
export class KycRateLimitError extends KycApiError {
  override readonly name: string = 'KycRateLimitError';
  readonly retryAfterMs: number | undefined;

  constructor(message: string, init: KycRateLimitErrorInit) {
    super(message, init);
    this.retryAfterMs = init.retryAfterMs;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), retryAfterMs: this.retryAfterMs };
  }
}

/** 5xx: the service failed. Retried for 500, 502, 503 and 504 before this is thrown. */
export class KycServerError extends KycApiError {
  override readonly name: string = 'KycServerError';
}

/**
 * Builds the error class that fits a status.
 *
 * @example
 * createApiError(404, 'session not found', { status: 404 }) instanceof KycNotFoundError // true
 */
export function createApiError(message: string, init: KycRateLimitErrorInit): KycApiError {
  const { status } = init;
  if (status === 401) return new KycAuthenticationError(message, init);
  if (status === 403) return new KycPermissionError(message, init);
  if (status === 404) return new KycNotFoundError(message, init);
  if (status === 409) return new KycConflictError(message, init);
  if (status === 429) return new KycRateLimitError(message, init);
  if (status >= 500) return new KycServerError(message, init);
  return new KycApiError(message, init);
}
