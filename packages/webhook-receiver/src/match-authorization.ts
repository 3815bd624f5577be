import { AUTH_KEY_MIN_LENGTH, AUTH_SCHEME } from '@kyc/contracts/webhook-reader';

/** `matchAuthorization` results below zero: why the header was refused. */
export const AUTH_MISSING = -1;
export const AUTH_MALFORMED = -2;
export const AUTH_INVALID = -3;

const SCHEME = AUTH_SCHEME.toLowerCase();

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

function hasBlank(text: string, from: number, end: number): boolean {
  const space = text.indexOf(' ', from);
  if (space !== -1 && space < end) return true;
  const tab = text.indexOf('\t', from);
  return tab !== -1 && tab < end;
}

/**
 * Compares over the key's own length, whatever the candidate's length, and folds a length
 * mismatch into the result, so the time taken depends on neither where they differ nor on
 * how long the candidate is. The candidate is `length` characters of `text` from `start`, read
 * in place, without slicing it out of the header. Every read stays inside the candidate (the
 * index wraps around its length): an out-of-range `charCodeAt` takes a slower path in V8, which
 * would time the key's length. Returns 0 when equal. (Hashing both sides to fixed-length digests would do
 * the same, but Web Crypto's digest is async only and a JavaScript SHA-256 would not fit
 * verifyAuthorization's 1 KB budget.)
 */
function difference(key: string, text: string, start: number, length: number): number {
  let diff = key.length ^ length;
  // `at` runs over the candidate and wraps to 0 after its last character, without a branch or a
  // division: (next - length) >> 31 is all ones while next < length, and 0 once it reaches it.
  for (let index = 0, at = 0; index < key.length; index++) {
    diff |= key.charCodeAt(index) ^ text.charCodeAt(start + at);
    const next = at + 1;
    at = next & ((next - length) >> 31);
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

  // The scheme is letters only: setting bit 0x20 lower-cases an ASCII letter and turns nothing
  // else into one, so six matching characters are no blank, and a blank must follow them.
  const schemeEnd = start + SCHEME.length;
  if (schemeEnd >= end) return AUTH_MALFORMED;
  for (let index = 0; index < SCHEME.length; index++)
    if ((header.charCodeAt(start + index) | 0x20) !== SCHEME.charCodeAt(index)) return AUTH_MALFORMED;
  if (!isBlank(header.charCodeAt(schemeEnd))) return AUTH_MALFORMED;
  let tokenStart = schemeEnd + 1;
  while (tokenStart < end && isBlank(header.charCodeAt(tokenStart))) tokenStart++;
  // No blank inside the token (the ends are trimmed): two native searches rather than a loop in
  // JavaScript over every character, which cost a third of the whole check.
  if (hasBlank(header, tokenStart, end)) return AUTH_MALFORMED;

  let matched = AUTH_INVALID;
  try {
    const keys: readonly unknown[] = Array.isArray(authKeys) ? authKeys : [authKeys];
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index];
      if (typeof key !== 'string' || key.length < AUTH_KEY_MIN_LENGTH) continue;
      if (difference(key, header, tokenStart, end - tokenStart) === 0) matched = index;
    }
  } catch {
    // Only a hostile `authKeys` (a throwing getter, a revoked Proxy) gets here: refuse, never throw.
    return AUTH_INVALID;
  }
  return matched;
}
