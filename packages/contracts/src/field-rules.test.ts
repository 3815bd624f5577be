import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  calendarDateRule,
  detailsUrlRule,
  durationRule,
  type FieldRule,
  ipAddressRule,
  isoTimestampRule,
  nonEmptyStringRule,
  scoreRule,
  sessionIdRule,
  stringRule,
} from './field-rules.js';
import {
  calendarDateSchema,
  detailsUrlSchema,
  durationSchema,
  ipAddressSchema,
  isoTimestampSchema,
  nonEmptyStringSchema,
  scoreSchema,
  sessionIdSchema,
} from './field-schemas.js';

// The reader judges fields with these zod-free rules and the wire schemas with zod: the two
// must agree on every input, valid and invalid alike.
const pairs: Record<string, [FieldRule<unknown>, z.ZodType]> = {
  sessionId: [sessionIdRule, sessionIdSchema],
  nonEmptyString: [nonEmptyStringRule, nonEmptyStringSchema],
  string: [stringRule, z.string()],
  isoTimestamp: [isoTimestampRule, isoTimestampSchema],
  score: [scoreRule, scoreSchema],
  duration: [durationRule, durationSchema],
  detailsUrl: [detailsUrlRule, detailsUrlSchema],
  calendarDate: [calendarDateRule, calendarDateSchema],
  ipAddress: [ipAddressRule, ipAddressSchema],
};

const pad = (value: number, width: number) => String(value).padStart(width, '0');

// Dates and times with every component allowed out of range (leap days, day 31 of short months,
// hour 24, second 60, offset hour 24), and the separators the schema refuses.
const dateLike = fc
  .record({
    year: fc.oneof(
      fc.integer({ min: 0, max: 9999 }),
      fc.integer({ min: 0, max: 99 }).map((century) => century * 100),
    ),
    month: fc.integer({ min: 0, max: 13 }),
    day: fc.integer({ min: 0, max: 32 }),
  })
  .map(({ year, month, day }) => `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`);
const timestampLike = fc
  .record({
    date: dateLike,
    separator: fc.constantFrom('T', 'T', 'T', 't', ' '),
    hours: fc.integer({ min: 0, max: 25 }),
    minutes: fc.integer({ min: 0, max: 61 }),
    seconds: fc.option(fc.integer({ min: 0, max: 61 }), { nil: undefined }),
    fraction: fc.option(fc.stringMatching(/^\d{0,9}$/), { nil: undefined }),
    zone: fc.oneof(
      fc.constantFrom('Z', 'z', ''),
      fc
        .tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 25 }), fc.integer({ min: 0, max: 61 }))
        .map(([sign, h, m]) => `${sign}${pad(h, 2)}:${pad(m, 2)}`),
    ),
  })
  .map(
    ({ date, separator, hours, minutes, seconds, fraction, zone }) =>
      `${date}${separator}${pad(hours, 2)}:${pad(minutes, 2)}${seconds === undefined ? '' : `:${pad(seconds, 2)}`}${fraction === undefined ? '' : `.${fraction}`}${zone}`,
  );
const addressLike = fc.oneof(
  fc.tuple(fc.nat(300), fc.nat(300), fc.nat(300), fc.nat(300)).map((parts) => parts.join('.')),
  fc.stringMatching(/^[0-9a-fA-F:.]{0,45}$/),
  fc.array(fc.stringMatching(/^[0-9a-f]{0,5}$/), { minLength: 1, maxLength: 10 }).map((groups) => groups.join(':')),
  fc.constantFrom('::ffff:1.2.3.4', 'fe80::1%eth0', '::@1\\', '::1\n', '01.2.3.4', '2001:db8::24', '[::1]'),
);
const nearMisses = fc.oneof(
  timestampLike,
  dateLike,
  addressLike,
  fc.constantFrom(
    '1900-02-29',
    '2000-02-29',
    '2100-02-29T00:00:00Z',
    '2000-02-29T23:59:59.999Z',
    '2026-04-31T00:00:00Z',
    '2026-11-21T24:00:00Z',
    '2026-11-21T10:60:00Z',
    '2026-11-21T10:15:60Z',
    '2026-11-21T10:15:59.999999+23:59',
    '2026-11-21T10:15:30+24:00',
    '2026-11-21T10:15:30-01:60',
    '95s',
    '1h2m3.5s',
    '95',
    'https://kyc.example.com/api/v1/kyc/session/x',
    'http://a/b?c#d',
    'https://user@host/x',
    'ftp://host/x',
    '',
    'x'.repeat(256),
    'x'.repeat(257),
  ),
  fc.string(),
  fc.double(),
  fc.integer({ min: -5, max: 105 }),
  fc.jsonValue(),
);

describe('field rules', () => {
  for (const [name, [rule, schema]] of Object.entries(pairs)) {
    it(`${name}: the zod-free rule and the zod schema agree`, () => {
      fc.assert(
        fc.property(nearMisses, (value) => {
          expect(rule.is(value)).toBe(schema.safeParse(value).success);
        }),
        { numRuns: 5000 },
      );
    });
  }

  it('every rule says what it expected', () => {
    for (const [rule] of Object.values(pairs)) expect(rule.expected).toMatch(/^an? /);
  });
});
