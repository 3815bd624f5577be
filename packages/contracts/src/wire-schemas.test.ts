import { describe, expect, it } from 'vitest';
import { parseDurationMs } from './field-rules.js';
import {
  sampleApiErrorBody,
  sampleCombinedWebhook,
  sampleSessionDetails,
  sampleStatusWebhook,
  sampleV1Webhook,
  sessionDetailsUrl,
} from './fixtures.js';
import {
  apiErrorBodySchema,
  finishSessionRequestSchema,
  sessionDetailsSchema,
  webhookCombinedSchema,
  webhookStatusSchema,
  webhookV1Schema,
} from './wire-schemas.js';

describe('wire schemas', () => {
  it('accept every fixture of their shape', () => {
    expect(webhookV1Schema.parse(sampleV1Webhook)).toEqual(sampleV1Webhook);
    expect(webhookStatusSchema.parse(sampleStatusWebhook)).toEqual(sampleStatusWebhook);
    expect(webhookCombinedSchema.parse(sampleCombinedWebhook)).toEqual(sampleCombinedWebhook);
    expect(sessionDetailsSchema.parse(sampleSessionDetails)).toEqual(sampleSessionDetails);
    expect(apiErrorBodySchema.parse(sampleApiErrorBody)).toEqual(sampleApiErrorBody);
  });

  it('refuse a body with both groups whose id and sessionId name different sessions, as the receiver does', () => {
    const result = webhookCombinedSchema.safeParse({ ...sampleCombinedWebhook, sessionId: 'sess_someone_else' });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => [issue.path, issue.message])).toEqual([
      [['sessionId'], '"id" and "sessionId" name different sessions'],
    ]);
  });

  it('let unknown properties through', () => {
    const details = sessionDetailsSchema.parse({ ...sampleSessionDetails, riskTier: 'low' });
    expect(details).toHaveProperty('riskTier', 'low');
  });

  it('reject session details without the required fields, naming the path', () => {
    const { state: _state, ...withoutState } = sampleSessionDetails;
    const result = sessionDetailsSchema.safeParse(withoutState);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['state']);
  });

  it('accept an in-progress session without end, duration and scores', () => {
    const { endedAt: _e, duration: _d, scores: _s, validation: _v, status: _st, ...rest } = sampleSessionDetails;
    expect(sessionDetailsSchema.safeParse({ ...rest, state: 'IN_PROGRESS' }).success).toBe(true);
  });

  it.each([[{}], [{ sessionId: '' }], [{ sessionId: 5 }], [{ id: 'x' }]])('reject the finish request %j', (body) => {
    expect(finishSessionRequestSchema.safeParse(body).success).toBe(false);
  });

  it('accept unknown API error codes but not a body without a message', () => {
    expect(apiErrorBodySchema.safeParse({ error: { code: 'NEW_CODE', message: 'm' } }).success).toBe(true);
    expect(apiErrorBodySchema.safeParse({ error: { code: 'INTERNAL' } }).success).toBe(false);
    expect(apiErrorBodySchema.safeParse({ message: 'x' }).success).toBe(false);
  });

  it('reject a status body with an unknown status', () => {
    expect(webhookStatusSchema.safeParse({ ...sampleStatusWebhook, status: 'DONE' }).success).toBe(false);
  });
});

describe('fixtures', () => {
  it('cannot be changed by accident', () => {
    expect(() => {
      (sampleV1Webhook.scores as { total: number }).total = 1;
    }).toThrow(TypeError);
  });

  it('build detail URLs with the API base path, the id encoded and no double slash', () => {
    expect(sessionDetailsUrl('https://kyc.example.com/', 'a/b')).toBe(
      'https://kyc.example.com/api/v1/kyc/session/a%2Fb',
    );
    expect(sessionDetailsUrl('https://x.test/prefix', 'id')).toBe('https://x.test/prefix/api/v1/kyc/session/id');
  });

  it('are about the size the receiver benchmark assumes (about 1.2 KB for the status shape)', () => {
    const size = JSON.stringify(sampleStatusWebhook).length;
    expect(size).toBeGreaterThan(800);
    expect(size).toBeLessThan(1600);
  });
});

describe('parseDurationMs', () => {
  it.each([
    ['', undefined],
    ['s', undefined],
    ['10x', undefined],
    ['-5s', undefined],
    ['2d', 172_800_000],
    ['500us', 0.5],
    ['95s', 95_000],
    ['250ms', 250],
    ['1.5m', 90_000],
    ['1h2m3.5s', 3_723_500],
    ['1s1s', 2000],
    ['95s ', undefined],
    [`${'9'.repeat(400)}s`, undefined],
    [`1s${'9'.repeat(400)}s`, undefined],
  ])('%j → %j', (text, expected) => {
    expect(parseDurationMs(text)).toBe(expected);
  });
});
