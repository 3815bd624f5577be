import { AUTH_KEY_MIN_LENGTH, AUTH_SCHEME } from '@kyc/contracts/webhook-reader';

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
const SCHEME = AUTH_SCHEME.toLowerCase();

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

/**
 * Compares over the key's own length, whatever the candidate's length, and folds a length
 * mismatch into the result, so the time taken depends on neither where they differ nor on
 * how long the candidate is. Every read stays inside the candidate (index modulo its length):
 * an out-of-range `charCodeAt` takes a slower path in V8, which would time the key's length.
 * Returns 0 when equal. (Hashing both sides to fixed-length digests would do the same, but Web
 * Crypto's digest is async only and a JavaScript SHA-256 would not fit this function's 1 KB budget.)
 */
function difference(key: string, candidate: string): number {
  let diff = key.length ^ candidate.length;
  for (let index = 0; index < key.length; index++) {
    diff |= key.charCodeAt(index) ^ candidate.charCodeAt(index % candidate.length);
  }
  return diff;
}

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
  if (typeof header !== 'string') return MISSING;
  let start = 0;
  let end = header.length;
  while (start < end && isBlank(header.charCodeAt(start))) start++;
  while (end > start && isBlank(header.charCodeAt(end - 1))) end--;
  if (start === end) return MISSING;

  let schemeEnd = start;
  while (schemeEnd < end && !isBlank(header.charCodeAt(schemeEnd))) schemeEnd++;
  if (schemeEnd - start !== SCHEME.length || header.slice(start, schemeEnd).toLowerCase() !== SCHEME) return MALFORMED;
  let tokenStart = schemeEnd;
  while (tokenStart < end && isBlank(header.charCodeAt(tokenStart))) tokenStart++;
  if (tokenStart === end) return MALFORMED;
  const token = header.slice(tokenStart, end);
  for (let index = 0; index < token.length; index++) if (isBlank(token.charCodeAt(index))) return MALFORMED;

  let matched = 0;
  try {
    const keys: readonly unknown[] = Array.isArray(authKeys) ? authKeys : [authKeys];
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index];
      if (typeof key !== 'string' || key.length < AUTH_KEY_MIN_LENGTH) continue;
      matched |= difference(key, token) === 0 ? 1 : 0;
    }
  } catch {
    // Only a hostile `authKeys` (a throwing getter, a revoked Proxy) gets here: refuse, never throw.
    return INVALID;
  }
  return matched === 1 ? OK : INVALID;
}
