import { SCORE_MAX, SCORE_MIN, SESSION_ID_MAX_LENGTH } from './constants.js';
import { DURATION_EXPECTED, DURATION_PATTERN, HTTP_URL_EXPECTED, HTTP_URL_PATTERN } from './patterns.js';

/**
 * How the tolerant reader judges one field: a guard, and what the field should have been when
 * the guard says no. No zod here, so that a receiver bundles the reader without it; the zod
 * schemas of `field-schemas.ts` accept exactly the same values (a property test holds each
 * guard equal to its schema).
 */
export interface FieldRule<T> {
  readonly is: (value: unknown) => value is T;
  /** Completes "expected …" in an issue message. */
  readonly expected: string;
}

const isString = (value: unknown): value is string => typeof value === 'string';

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
// Shapes only; the ranges are checked on the digits, which is cheaper than capture groups.
const CALENDAR_DATE = /^\d{4}-\d\d-\d\d$/;
const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)$/;
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
// Only the characters of an address: the URL parser below reads an authority, where `@`, `\`
// or a tab would otherwise re-delimit or vanish.
const IPV6_ALPHABET = /^[0-9a-fA-F:.]+$/;
const Z = 90;

/** The number that the ASCII digits from `from` to `to` of `text` spell. */
export function digitsAt(text: string, from: number, to: number): number {
  let value = 0;
  for (let index = from; index < to; index++) value = value * 10 + text.charCodeAt(index) - 48;
  return value;
}

/** Whether `YYYY-MM-DD` at the start of `text` names a day that exists. */
function isRealDate(text: string): boolean {
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 7);
  const day = digitsAt(text, 8, 10);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const last = month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
  return day >= 1 && day <= last;
}

/** `YYYY-MM-DD`, a day that exists. */
function isCalendarDate(value: unknown): value is string {
  return isString(value) && CALENDAR_DATE.test(value) && isRealDate(value);
}

/** ISO 8601 date-time with seconds, optional fraction, and `Z` or a `±HH:MM` offset. */
function isIsoTimestamp(value: unknown): value is string {
  if (!isString(value) || !DATE_TIME.test(value) || !isRealDate(value)) return false;
  if (digitsAt(value, 11, 13) > 23 || digitsAt(value, 14, 16) > 59 || digitsAt(value, 17, 19) > 59) return false;
  const end = value.length;
  return (
    value.charCodeAt(end - 1) === Z || (digitsAt(value, end - 5, end - 3) <= 23 && digitsAt(value, end - 2, end) <= 59)
  );
}

function isIpv6(value: string): boolean {
  if (!IPV6_ALPHABET.test(value)) return false;
  try {
    new URL(`http://[${value}]`);
    return true;
  } catch {
    return false;
  }
}

/** A session id: a non-empty string of at most {@link SESSION_ID_MAX_LENGTH} characters. */
export const sessionIdRule: FieldRule<string> = {
  is: (v): v is string => isString(v) && v.length >= 1 && v.length <= SESSION_ID_MAX_LENGTH,
  expected: `a string of 1 to ${SESSION_ID_MAX_LENGTH} characters`,
};

/** A non-empty string, e.g. `shortKey`. */
export const nonEmptyStringRule: FieldRule<string> = {
  is: (v): v is string => isString(v) && v.length >= 1,
  expected: 'a non-empty string',
};

/** Any string (names, document numbers, nationality). */
export const stringRule: FieldRule<string> = { is: isString, expected: 'a string' };

/** ISO 8601 date-time; the service sends fractional seconds and `Z`, offsets are tolerated. */
export const isoTimestampRule: FieldRule<string> = {
  is: isIsoTimestamp,
  expected: 'an ISO 8601 date-time such as "2026-11-21T10:15:30.123Z"',
};

/** A score on the 0–100 scale. */
export const scoreRule: FieldRule<number> = {
  is: (v): v is number => typeof v === 'number' && v >= SCORE_MIN && v <= SCORE_MAX,
  expected: `a number from ${SCORE_MIN} to ${SCORE_MAX}`,
};

/** A time span such as `"95s"`. */
export const durationRule: FieldRule<string> = {
  is: (v): v is string => isString(v) && DURATION_PATTERN.test(v),
  expected: DURATION_EXPECTED,
};

/** The `detailsURL` of a webhook: an absolute http(s) URL. */
export const detailsUrlRule: FieldRule<string> = {
  is: (v): v is string => isString(v) && HTTP_URL_PATTERN.test(v),
  expected: HTTP_URL_EXPECTED,
};

/** A calendar date (`YYYY-MM-DD`), as used for a date of birth. */
export const calendarDateRule: FieldRule<string> = { is: isCalendarDate, expected: 'a date as YYYY-MM-DD' };

/** An IPv4 or IPv6 address. */
export const ipAddressRule: FieldRule<string> = {
  is: (v): v is string => isString(v) && (IPV4.test(v) || isIpv6(v)),
  expected: 'an IPv4 or IPv6 address',
};

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};
const DURATION_PART = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d)/y;
const SINGLE_DURATION = /^(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d)$/;

/**
 * Converts a duration text to milliseconds, or `undefined` when it does not match
 * {@link DURATION_PATTERN}.
 *
 * @example
 * parseDurationMs('1m30s') // 90000
 */
export function parseDurationMs(text: string): number | undefined {
  // One number and one unit is what the service sends: one match instead of a test and a loop.
  const single = SINGLE_DURATION.exec(text);
  let total = 0;
  if (single !== null) total = Number(single[1]) * (UNIT_MS[single[2] ?? ''] ?? 0);
  else {
    if (!DURATION_PATTERN.test(text)) return undefined;
    DURATION_PART.lastIndex = 0;
    for (let match = DURATION_PART.exec(text); match !== null; match = DURATION_PART.exec(text)) {
      total += Number(match[1]) * (UNIT_MS[match[2] ?? ''] ?? 0);
    }
  }
  return Number.isFinite(total) ? total : undefined;
}

/** Why a body with both groups is refused when `id` and `sessionId` differ (the reader and the zod schema say the same). */
export const CONFLICTING_SESSION_IDS = '"id" and "sessionId" name different sessions';
