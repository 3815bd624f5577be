import { AUTH_KEY_MIN_LENGTH, AUTH_SCHEME } from '@kyc/contracts/webhook-reader';

/** `matchAuthorization` results below zero: why the header was refused. */
export const AUTH_MISSING = -1;
export const AUTH_MALFORMED = -2;
export const AUTH_INVALID = -3;

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
 * Crypto's digest is async only and a JavaScript SHA-256 would not fit verifyAuthorization's 1 KB budget.)
 */
function difference(key: string, candidate: string): number {
  let diff = key.length ^ candidate.length;
  for (let index = 0; index < key.length; index++) {
    diff |= key.charCodeAt(index) ^ candidate.charCodeAt(index % candidate.length);
  }
  return diff;
}

/**
 * The position in `authKeys` of the key an `Authorization: Bearer <key>` header carries, or
 * {@link AUTH_MISSING}, {@link AUTH_MALFORMED} or {@link AUTH_INVALID}. Every key is compared in
 * constant time, without stopping at the first match; only which position matched may show in
 * the timing, never any part of a key. The receiver records the position in its audit trail
 * (which key of a rotation the sender used); {@link verifyAuthorization} is the public face.
 */
export function matchAuthorization(header: string | null | undefined, authKeys: unknown): number {
  if (typeof header !== 'string') return AUTH_MISSING;
  let start = 0;
  let end = header.length;
  while (start < end && isBlank(header.charCodeAt(start))) start++;
  while (end > start && isBlank(header.charCodeAt(end - 1))) end--;
  if (start === end) return AUTH_MISSING;

  let schemeEnd = start;
  while (schemeEnd < end && !isBlank(header.charCodeAt(schemeEnd))) schemeEnd++;
  if (schemeEnd - start !== SCHEME.length || header.slice(start, schemeEnd).toLowerCase() !== SCHEME)
    return AUTH_MALFORMED;
  let tokenStart = schemeEnd;
  while (tokenStart < end && isBlank(header.charCodeAt(tokenStart))) tokenStart++;
  if (tokenStart === end) return AUTH_MALFORMED;
  const token = header.slice(tokenStart, end);
  for (let index = 0; index < token.length; index++) if (isBlank(token.charCodeAt(index))) return AUTH_MALFORMED;

  let matched = AUTH_INVALID;
  try {
    const keys: readonly unknown[] = Array.isArray(authKeys) ? authKeys : [authKeys];
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index];
      if (typeof key !== 'string' || key.length < AUTH_KEY_MIN_LENGTH) continue;
      if (difference(key, token) === 0) matched = index;
    }
  } catch {
    // Only a hostile `authKeys` (a throwing getter, a revoked Proxy) gets here: refuse, never throw.
    return AUTH_INVALID;
  }
  return matched;
}
