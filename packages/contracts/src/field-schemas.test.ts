import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
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
} from './field-schemas.js';

// The reader trusts each rule's guard and asks zod only to explain a rejection, so the two
// must agree on every input, valid and invalid alike.
const rules: Record<string, FieldRule<unknown>> = {
  sessionIdRule,
  nonEmptyStringRule,
  isoTimestampRule,
  scoreRule,
  durationRule,
  detailsUrlRule,
  calendarDateRule,
  ipAddressRule,
};

const nearMisses = fc.oneof(
  fc.constantFrom(
    '2026-11-21T10:15:30.123Z',
    '2026-11-21T10:15:30Z',
    '2026-11-21T10:15:30+01:00',
    '2026-02-29T10:15:30Z',
    '2024-02-29T10:15:30Z',
    '2026-11-21T24:00:00Z',
    '2026-11-21 10:15:30Z',
    '1990-04-01',
    '1990-02-30',
    '95s',
    '1h2m3.5s',
    '95',
    'https://kyc.example.com/api/v1/kyc/session/x',
    'http://a/b?c#d',
    'https://user@host/x',
    'ftp://host/x',
    '203.0.113.24',
    '256.1.1.1',
    '2001:db8::24',
    '::ffff:1.2.3.4',
    'fe80::1%eth0',
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
  for (const [name, rule] of Object.entries(rules)) {
    it(`${name}: the fast guard and the zod schema agree`, () => {
      fc.assert(
        fc.property(nearMisses, (value) => {
          expect(rule.is(value)).toBe(rule.schema.safeParse(value).success);
        }),
        { numRuns: 3000 },
      );
    });
  }
});
