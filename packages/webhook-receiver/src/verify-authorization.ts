import { AUTH_MALFORMED, AUTH_MISSING, matchAuthorization } from './match-authorization.js';

/** Why an `Authorization` header was refused. */
export type AuthorizationFailureCode = 'missing_auth' | 'malformed_auth' | 'invalid_auth';

/** The outcome of {@link verifyAuthorization}. */
export type AuthorizationResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: AuthorizationFailureCode };

/** One Auth Key, or several while rotating (the old and the new key both accepted). */
export type AuthKeys = string | readonly string[];

const OK: AuthorizationResult = Object.freeze({ ok: true });
const MISSING: AuthorizationResult = Object.freeze({ ok: false, code: 'missing_auth' });
const MALFORMED: AuthorizationResult = Object.freeze({ ok: false, code: 'malformed_auth' });
const INVALID: AuthorizationResult = Object.freeze({ ok: false, code: 'invalid_auth' });

/**
 * Checks an `Authorization: Bearer <key>` header against one Auth Key or several (rotation).
 * The scheme matches in any casing; blanks around the key are tolerated. Every key is compared
 * in constant time, without stopping at the first match. Keys that are not strings of at least
 * `AUTH_KEY_MIN_LENGTH` characters never match. Synchronous, and it never throws, whatever it is given.
 *
 * @param header - the `Authorization` header value (`null`/`undefined` when absent).
 * @param authKeys - the accepted key, or an array of keys.
 * @example
 * const result = verifyAuthorization(request.headers.get(HEADERS.authorization), [process.env.KYC_KEY, process.env.KYC_OLD_KEY]);
 * if (!result.ok) return new Response(null, { status: 401 });
 */
export function verifyAuthorization(header: string | null | undefined, authKeys: AuthKeys): AuthorizationResult {
  const matched = matchAuthorization(header, authKeys);
  if (matched >= 0) return OK;
  return matched === AUTH_MISSING ? MISSING : matched === AUTH_MALFORMED ? MALFORMED : INVALID;
}
