import * as z from 'zod';
import { SCORE_MAX, SCORE_MIN, SESSION_ID_MAX_LENGTH, VALIDATION_METHODS, VERIFICATION_STATUSES } from './constants.js';
import { DURATION_MESSAGE, DURATION_PATTERN, HTTP_URL_MESSAGE, HTTP_URL_PATTERN } from './patterns.js';

// Re-exported: the package index has always exported them from here.
export { DURATION_PATTERN, HTTP_URL_PATTERN };

/**
 * Value rules shared by the strict wire schemas and the tolerant reader, so that both judge
 * a field the same way. Each rule is a zod schema plus a guard built from the same pattern
 * and bounds: the reader runs the guard on the hot path and asks zod to explain only when
 * the guard says no (a test proves guard and schema agree on arbitrary input).
 */
export interface FieldRule<T> {
  readonly schema: z.ZodType<T>;
  readonly is: (value: unknown) => value is T;
}

function rule<T>(schema: z.ZodType<T>, is: (value: unknown) => value is T): FieldRule<T> {
  return { schema, is };
}

const DATETIME_PATTERN = z.regexes.datetime({ precision: null, offset: true, local: false });
const CALENDAR_DATE_PATTERN = z.regexes.date;

const isString = (value: unknown): value is string => typeof value === 'string';

/** A session id: a non-empty string of at most {@link SESSION_ID_MAX_LENGTH} characters. */
export const sessionIdSchema = z.string().min(1).max(SESSION_ID_MAX_LENGTH);
export const sessionIdRule = rule(
  sessionIdSchema,
  (v): v is string => isString(v) && v.length >= 1 && v.length <= SESSION_ID_MAX_LENGTH,
);

/** A non-empty string, e.g. `shortKey`. */
export const nonEmptyStringSchema = z.string().min(1);
export const nonEmptyStringRule = rule(nonEmptyStringSchema, (v): v is string => isString(v) && v.length >= 1);

/** Any string (names, document numbers, nationality). */
export const stringRule = rule(z.string(), isString);

/** ISO 8601 date-time; the service sends fractional seconds and `Z`, offsets are tolerated. */
export const isoTimestampSchema = z.iso.datetime({ offset: true });
export const isoTimestampRule = rule(isoTimestampSchema, (v): v is string => isString(v) && DATETIME_PATTERN.test(v));

/** A score on the 0–100 scale. */
export const scoreSchema = z.number().min(SCORE_MIN).max(SCORE_MAX);
export const scoreRule = rule(
  scoreSchema,
  (v): v is number => typeof v === 'number' && v >= SCORE_MIN && v <= SCORE_MAX,
);

export const durationSchema = z.string().regex(DURATION_PATTERN, DURATION_MESSAGE);
export const durationRule = rule(durationSchema, (v): v is string => isString(v) && DURATION_PATTERN.test(v));

export const validationMethodSchema = z.enum(VALIDATION_METHODS);
export const verificationStatusSchema = z.enum(VERIFICATION_STATUSES);

/** The `detailsURL` of a webhook: an absolute http(s) URL. */
export const detailsUrlSchema = z.string().regex(HTTP_URL_PATTERN, HTTP_URL_MESSAGE);
export const detailsUrlRule = rule(detailsUrlSchema, (v): v is string => isString(v) && HTTP_URL_PATTERN.test(v));

/** A calendar date (`YYYY-MM-DD`), as used for a date of birth. */
export const calendarDateSchema = z.iso.date();
export const calendarDateRule = rule(
  calendarDateSchema,
  (v): v is string => isString(v) && CALENDAR_DATE_PATTERN.test(v),
);

/** An IPv4 or IPv6 address. */
const ipv6Schema = z.ipv6();
export const ipAddressSchema = z.union([z.ipv4(), ipv6Schema]);
export const ipAddressRule = rule(
  ipAddressSchema,
  // IPv4 by its pattern; IPv6 has forms (embedded IPv4) that only zod's full check judges.
  (v): v is string => isString(v) && (z.regexes.ipv4.test(v) || ipv6Schema.safeParse(v).success),
);

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
