import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTimestampRule } from './field-rules.js';
import { timestampToDate } from './timestamp-to-date.js';

const pad = (value: number, width: number) => String(value).padStart(width, '0');

// Timestamp-shaped texts with components out of range too, so leap days, day 31 of short
// months and fractions of every length meet the arithmetic; only the accepted ones count.
const timestampLike = fc
  .record({
    year: fc.integer({ min: 0, max: 9999 }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 31 }),
    hours: fc.integer({ min: 0, max: 23 }),
    minutes: fc.integer({ min: 0, max: 59 }),
    seconds: fc.integer({ min: 0, max: 59 }),
    fraction: fc.option(fc.stringMatching(/^\d{1,9}$/), { nil: undefined }),
    zone: fc.constantFrom('Z', 'z', '+01:00', '-05:30', '+00:00'),
  })
  .map(
    ({ year, month, day, hours, minutes, seconds, fraction, zone }) =>
      `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}${fraction === undefined ? '' : `.${fraction}`}${zone}`,
  )
  .filter((text) => isoTimestampRule.is(text));

describe('timestampToDate', () => {
  it('names the same instant as new Date for every accepted timestamp', () => {
    fc.assert(
      fc.property(timestampLike, (text) => {
        expect(timestampToDate(text).getTime()).toBe(new Date(text).getTime());
      }),
      { numRuns: 20_000 },
    );
  });

  it.each([
    ['2026-11-21T10:15:30.123Z', '2026-11-21T10:15:30.123Z'],
    ['2026-11-21T10:15:30Z', '2026-11-21T10:15:30.000Z'],
    ['2026-11-21T10:15:30.1Z', '2026-11-21T10:15:30.100Z'],
    ['2026-11-21T10:15:30.123999Z', '2026-11-21T10:15:30.123Z'],
    ['2024-02-29T23:59:59.999Z', '2024-02-29T23:59:59.999Z'],
    ['1970-01-01T00:00:00Z', '1970-01-01T00:00:00.000Z'],
    ['0050-03-01T00:00:00Z', '0050-03-01T00:00:00.000Z'],
    ['2026-11-21T10:15:30+01:00', '2026-11-21T09:15:30.000Z'],
  ])('reads %s as %s', (text, iso) => {
    expect(timestampToDate(text).toISOString()).toBe(iso);
  });
});
