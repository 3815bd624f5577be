import fc from 'fast-check';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type * as z from 'zod/mini';
import { sessionIdSchema } from './field-schemas.js';
import { sampleApiErrorBody, sampleSessionDetails } from './fixtures.js';
import { apiErrorBodyMiniSchema, sessionDetailsMiniSchema, sessionIdMiniSchema } from './service-api-schemas.js';
import { type ApiErrorBody, apiErrorBodySchema, type SessionDetails, sessionDetailsSchema } from './wire-schemas.js';

// The zod/mini schemas restate the classic ones for bundle size; these tests are what keeps the
// two from drifting apart: same shape, same verdict, same issue paths and codes on any input.

interface Judged {
  readonly parse: (value: unknown) => { success: boolean; data?: unknown; error?: { issues: readonly Issue[] } };
}
interface Issue {
  readonly code: string;
  readonly path: readonly PropertyKey[];
}

function verdict(schema: Judged, value: unknown) {
  const result = schema.parse(value);
  if (result.success) return { success: true, data: result.data };
  const issues = (result.error?.issues ?? []).map(({ code, path }) => ({ code, path: [...path] }));
  return { success: false, issues };
}

function expectSameVerdict(classic: Judged, mini: Judged, value: unknown): void {
  expect(verdict(mini, value)).toEqual(verdict(classic, value));
}

const judge = (schema: { safeParse: (value: unknown) => ReturnType<Judged['parse']> }): Judged => ({
  parse: (value) => schema.safeParse(value),
});

// Values each field may take in a generated body: valid ones, near misses and wrong types.
const fieldValue = fc.oneof(
  fc.constantFrom(
    undefined,
    null,
    '',
    'x',
    'IN_PROGRESS',
    'FINISHED',
    'DONE',
    'AUTOMATIC',
    'MANUAL',
    'APPROVED',
    'ERROR',
    '95s',
    '1h2m3.5s',
    '95',
    '2026-11-21T10:15:30.123Z',
    '2026-11-21T10:15:30+02:00',
    '2026-11-21 10:15:30',
    'https://kyc.example.com/api/v1/kyc/session/s1',
    'ftp://kyc.example.com/x',
    'https://user@kyc.example.com/x',
    'x'.repeat(257),
    0,
    100,
    -1,
    100.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    true,
    [],
  ),
  fc.string(),
  fc.double(),
  fc.record({ document: fc.double({ min: -10, max: 110 }), liveness: fc.constant(50), oneToOne: fc.anything() }),
  fc.constant({ ...sampleSessionDetails.scores }),
);
const FIELDS = [...Object.keys(sessionDetailsSchema.shape), 'extra'];
const mutatedDetails = fc
  .dictionary(fc.constantFrom(...FIELDS), fieldValue, { maxKeys: 4 })
  .map((changes) => ({ ...sampleSessionDetails, ...changes }));

describe('service-api zod/mini schemas match the classic wire schemas', () => {
  it('have the same properties, each equally optional', () => {
    expect(Object.keys(sessionDetailsMiniSchema.shape)).toEqual(Object.keys(sessionDetailsSchema.shape));
    for (const key of Object.keys(sessionDetailsSchema.shape) as (keyof typeof sessionDetailsSchema.shape)[]) {
      const classicOptional = sessionDetailsSchema.shape[key].safeParse(undefined).success;
      expect(sessionDetailsMiniSchema.shape[key]._zod.optin === 'optional', key).toBe(classicOptional);
    }
  });

  it('infer the same types', () => {
    expectTypeOf<z.infer<typeof sessionDetailsMiniSchema>>().toEqualTypeOf<SessionDetails>();
    expectTypeOf<z.infer<typeof apiErrorBodyMiniSchema>>().toEqualTypeOf<ApiErrorBody>();
    expectTypeOf<z.infer<typeof sessionIdMiniSchema>>().toEqualTypeOf<string>();
  });

  it('accept the fixtures, keeping unknown properties', () => {
    const withExtra = { ...sampleSessionDetails, riskTier: 'low' };
    expect(sessionDetailsMiniSchema.parse(withExtra)).toEqual(withExtra);
    expect(apiErrorBodyMiniSchema.parse(sampleApiErrorBody)).toEqual(sampleApiErrorBody);
  });

  it('give the same verdict, issue paths and codes on session details with any fields changed', () => {
    fc.assert(
      fc.property(mutatedDetails, (value) =>
        expectSameVerdict(judge(sessionDetailsSchema), judge(sessionDetailsMiniSchema), value),
      ),
      { numRuns: 2000 },
    );
    for (const value of [undefined, null, 'x', [], {}, { ...sampleSessionDetails, scores: [] }]) {
      expectSameVerdict(judge(sessionDetailsSchema), judge(sessionDetailsMiniSchema), value);
    }
  });

  it('give the same verdict on API error bodies and session ids', () => {
    const errorBody = fc.oneof(
      fc.anything(),
      fc.record({ error: fc.record({ code: fieldValue, message: fieldValue }, { requiredKeys: [] }) }),
    );
    fc.assert(
      fc.property(errorBody, (value) =>
        expectSameVerdict(judge(apiErrorBodySchema), judge(apiErrorBodyMiniSchema), value),
      ),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(fc.oneof(fieldValue, fc.string({ maxLength: 300 })), (value) =>
        expectSameVerdict(judge(sessionIdSchema), judge(sessionIdMiniSchema), value),
      ),
      { numRuns: 1000 },
    );
  });
});
