/** Stable codes of {@link DeliveryEngineError}. */
export type DeliveryEngineErrorCode =
  | 'invalid_option'
  | 'invalid_event'
  | 'invalid_url'
  | 'invalid_auth_key'
  | 'event_id_conflict'
  | 'not_found'
  | 'in_progress'
  | 'store_error'
  | 'store_locked'
  | 'store_fenced'
  | 'sealing_key_missing'
  | 'sealing_key_wrong'
  | 'credentials_error';

/**
 * The one error class of `@kyc/delivery-engine`: a stable `code` and a message that says what
 * was wrong and where. Messages never contain an Auth Key, a signing secret or a password.
 *
 * @example
 * ```ts
 * try {
 *   await engine.enqueue({ url, body });
 * } catch (error) {
 *   if (error instanceof DeliveryEngineError && error.code === 'invalid_url') showFormError(error.message);
 * }
 * ```
 */
export class DeliveryEngineError extends Error {
  override readonly name = 'DeliveryEngineError';
  readonly code: DeliveryEngineErrorCode;

  constructor(code: DeliveryEngineErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
