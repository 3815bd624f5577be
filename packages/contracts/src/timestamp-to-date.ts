import { digitsAt as digits } from './field-rules.js';

const DOT = 46;
const Z = 90;
const DAY_MS = 86_400_000;

/**
 * The `Date` of a timestamp that `isoTimestampSchema` has accepted. The service's own form
 * (`2026-11-21T10:15:30.123Z`) is computed from its digits, which costs a fraction of
 * `new Date(text)`; timestamps with an offset take `new Date`. Both give the same instant for
 * every accepted text: a property test holds them together.
 *
 * @example
 * timestampToDate('2026-11-21T10:15:30.123Z').getTime() // 1795256130123
 */
export function timestampToDate(text: string): Date {
  const length = text.length;
  if (length < 20 || text.charCodeAt(length - 1) !== Z || (length > 20 && text.charCodeAt(19) !== DOT)) {
    return new Date(text);
  }
  // Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
  const month = digits(text, 5, 7);
  const year = digits(text, 0, 4) - (month <= 2 ? 1 : 0);
  const era = Math.floor(year / 400);
  const yearOfEra = year - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + digits(text, 8, 10) - 1;
  const days =
    era * 146_097 + yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear - 719_468;
  // Fractional seconds past milliseconds are cut off, as `new Date` does.
  const fractionEnd = Math.min(length - 1, 23);
  const millis = length > 20 ? digits(text, 20, fractionEnd) * 10 ** (23 - fractionEnd) : 0;
  return new Date(
    days * DAY_MS +
      digits(text, 11, 13) * 3_600_000 +
      digits(text, 14, 16) * 60_000 +
      digits(text, 17, 19) * 1000 +
      millis,
  );
}
