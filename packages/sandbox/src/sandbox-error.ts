/** Stable codes of {@link SandboxError}. */
export type SandboxErrorCode =
  | 'invalid_option'
  | 'data_dir'
  | 'port_in_use'
  | 'user_exists'
  | 'user_not_found'
  | 'listen_failed'
  | 'secrets_key';

/**
 * The one error class of `@kyc/sandbox`: a stable `code` and a message that says what to do.
 * Messages never contain a password, an Auth Key, a signing secret or a secrets key.
 *
 * @example
 * ```ts
 * try {
 *   await startSandbox({ port: 8080, dataDir: './data' });
 * } catch (error) {
 *   if (error instanceof SandboxError && error.code === 'port_in_use') console.error(error.message);
 * }
 * ```
 */
export class SandboxError extends Error {
  override readonly name = 'SandboxError';
  readonly code: SandboxErrorCode;

  constructor(code: SandboxErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
