import {
  API_ERROR_CODES,
  type ApiErrorCode,
  SESSION_STATES,
  type SessionState,
  VALIDATION_METHODS,
  type ValidationMethod,
  VERIFICATION_STATUSES,
  type VerificationStatus,
} from '@kyc/contracts';

/**
 * Name-indexed views of the enumerations in `@kyc/contracts`, so sandbox code writes
 * `STATUS.APPROVED` instead of restating a wire value (contracts is the single source of truth).
 */
function byName<const T extends string>(values: readonly T[]): { readonly [K in T]: K } {
  return Object.freeze(Object.fromEntries(values.map((value) => [value, value]))) as { readonly [K in T]: K };
}

export const STATUS: { readonly [K in VerificationStatus]: K } = byName(VERIFICATION_STATUSES);
export const STATE: { readonly [K in SessionState]: K } = byName(SESSION_STATES);
export const VALIDATION: { readonly [K in ValidationMethod]: K } = byName(VALIDATION_METHODS);
export const ERROR_CODE: { readonly [K in ApiErrorCode]: K } = byName(API_ERROR_CODES);

/** The payload shapes the sandbox can send: the v1 group, the status group, or one body with both. */
export const PAYLOAD_SHAPES = ['v1', 'status', 'both'] as const;
export type PayloadShape = (typeof PAYLOAD_SHAPES)[number];
