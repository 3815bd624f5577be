import type * as z from 'zod';
import { KycError, type KycErrorOptions } from './kyc-error.js';

/** Which limit ran out: one attempt's `timeoutMs`, or the overall `deadlineMs` across attempts and waits. */
export type KycTimeoutKind = 'attempt' | 'deadline';

/** Options of {@link KycTimeoutError}. */
export interface KycTimeoutErrorOptions extends KycErrorOptions {
  readonly kind: KycTimeoutKind;
  readonly timeoutMs: number;
}

/**
 * No complete response in time. `kind: 'attempt'` is retried while retries and the deadline
 * last; `kind: 'deadline'` is final.
 *
 * @example
 * catch (error) {
 *   if (error instanceof KycTimeoutError && error.kind === 'deadline') scheduleLater();
 * }
 */
export class KycTimeoutError extends KycError {
  override readonly name: string = 'KycTimeoutError';
  readonly kind: KycTimeoutKind;
  readonly timeoutMs: number;

  constructor(message: string, options: KycTimeoutErrorOptions) {
    super(message, options);
    this.kind = options.kind;
    this.timeoutMs = options.timeoutMs;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), kind: this.kind, timeoutMs: this.timeoutMs };
  }
}

/** The request or its response body failed on the network (refused, reset, DNS, TLS). Retried. */
export class KycConnectionError extends KycError {
  override readonly name: string = 'KycConnectionError';
}

/** The caller's `signal` aborted the call; `cause` holds the signal's reason. Never retried. */
export class KycAbortError extends KycError {
  override readonly name: string = 'KycAbortError';
}

/** Why a 2xx response was not accepted. */
export type KycResponseValidationReason = 'invalid_json' | 'schema_mismatch';

/** Options of {@link KycResponseValidationError}. */
export interface KycResponseValidationErrorOptions extends KycErrorOptions {
  readonly reason: KycResponseValidationReason;
  readonly status: number;
  readonly requestId?: string | undefined;
  /** zod's issues (path + message); empty for `invalid_json`. Values are not echoed. */
  readonly issues?: readonly z.core.$ZodIssue[];
}

/**
 * A 2xx response whose body is not JSON or does not match the `@kyc/contracts` schema. The
 * body itself is not attached (it may hold personal data); `issues` say what and where.
 *
 * @example
 * catch (error) {
 *   if (error instanceof KycResponseValidationError) console.warn(error.issues.map((i) => i.path.join('.')));
 * }
 */
export class KycResponseValidationError extends KycError {
  override readonly name: string = 'KycResponseValidationError';
  readonly reason: KycResponseValidationReason;
  readonly status: number;
  readonly requestId: string | undefined;
  readonly issues: readonly z.core.$ZodIssue[];

  constructor(message: string, options: KycResponseValidationErrorOptions) {
    super(message, options);
    this.reason = options.reason;
    this.status = options.status;
    this.requestId = options.requestId;
    this.issues = options.issues ?? [];
  }

  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      reason: this.reason,
      status: this.status,
      requestId: this.requestId,
      issues: this.issues.map(({ code, path, message }) => ({ code, path, message })),
    };
  }
}

/** Why arguments or options were refused. */
export type KycInvalidRequestReason = 'invalid_option' | 'invalid_session_id' | 'details_url_refused';

/**
 * Bad arguments or options: nothing was sent. The message names the argument and the rule,
 * never a credential.
 *
 * @example
 * await client.getSession('').catch((error) => error instanceof KycInvalidRequestError); // true
 */
export class KycInvalidRequestError extends KycError {
  override readonly name: string = 'KycInvalidRequestError';
  readonly reason: KycInvalidRequestReason;

  constructor(reason: KycInvalidRequestReason, message: string) {
    super(message);
    this.reason = reason;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), reason: this.reason };
  }
}
