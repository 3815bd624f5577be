/**
 * What a request looked like, attached to errors for debugging. Headers are already redacted:
 * `authorization` and every header whose name suggests a secret read `[REDACTED]`.
 */
export interface KycRequestInfo {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** Options shared by every error of the family. */
export interface KycErrorOptions {
  readonly cause?: unknown;
  readonly request?: KycRequestInfo | undefined;
}

/**
 * Base class of every error the client throws. Catch this to handle them all; narrow with
 * `instanceof` on a subclass. Messages, `toJSON()` and `request` never hold a credential.
 *
 * @example
 * try {
 *   await client.getSession(id);
 * } catch (error) {
 *   if (error instanceof KycError) logger.warn(error.message, error.toJSON());
 * }
 */
export class KycError extends Error {
  override readonly name: string = 'KycError';
  /** The request that failed, with secret headers redacted; absent when none was sent. */
  readonly request: KycRequestInfo | undefined;

  constructor(message: string, options: KycErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.request = options.request;
  }

  /** A plain, secret-free view for structured logs (`JSON.stringify(error)`). */
  toJSON(): Record<string, unknown> {
    return { name: this.name, message: this.message, ...(this.request && { request: this.request }) };
  }
}
