import * as z from 'zod';
import { SCORE_MAX, SCORE_MIN, SESSION_ID_MAX_LENGTH, VALIDATION_METHODS, VERIFICATION_STATUSES } from './constants.js';
import { DURATION_MESSAGE, DURATION_PATTERN, HTTP_URL_MESSAGE, HTTP_URL_PATTERN } from './patterns.js';

/**
 * The zod schemas of single wire fields, composed into the body schemas of `wire-schemas.ts`.
 * The tolerant reader judges the same fields with the zod-free rules of `field-rules.ts`; a
 * property test holds each rule equal to its schema here.
 */

// Re-exported: the package index has always exported them from here.
export { DURATION_PATTERN, HTTP_URL_PATTERN };

/** A session id: a non-empty string of at most {@link SESSION_ID_MAX_LENGTH} characters. */
export const sessionIdSchema = z.string().min(1).max(SESSION_ID_MAX_LENGTH);

/** A non-empty string, e.g. `shortKey`. */
export const nonEmptyStringSchema = z.string().min(1);

/** ISO 8601 date-time; the service sends fractional seconds and `Z`, offsets are tolerated. */
export const isoTimestampSchema = z.iso.datetime({ offset: true });

/** A score on the 0–100 scale. */
export const scoreSchema = z.number().min(SCORE_MIN).max(SCORE_MAX);

/** A time span: one or more number + unit pairs (`"95s"`, `"250ms"`, `"1h2m3.5s"`). */
export const durationSchema = z.string().regex(DURATION_PATTERN, DURATION_MESSAGE);

export const validationMethodSchema = z.enum(VALIDATION_METHODS);
export const verificationStatusSchema = z.enum(VERIFICATION_STATUSES);

/** The `detailsURL` of a webhook: an absolute http(s) URL. */
export const detailsUrlSchema = z.string().regex(HTTP_URL_PATTERN, HTTP_URL_MESSAGE);

/** A calendar date (`YYYY-MM-DD`), as used for a date of birth. */
export const calendarDateSchema = z.iso.date();

/** An IPv4 or IPv6 address. */
export const ipAddressSchema = z.union([z.ipv4(), z.ipv6()]);
