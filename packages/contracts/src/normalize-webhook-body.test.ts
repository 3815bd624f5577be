import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  sampleCombinedWebhook,
  sampleSnakeCaseStatusWebhook,
  sampleStatusWebhook,
  sampleTitleCaseStatusWebhook,
  sampleV1Webhook,
} from './fixtures.js';
import { normalizeWebhookBody } from './normalize-webhook-body.js';
import type { NormalizedWebhook } from './webhook-types.js';

function accept(value: unknown): NormalizedWebhook {
  const result = normalizeWebhookBody(value);
  if (!result.ok) throw new Error(`rejected: ${result.code} ${JSON.stringify(result.issues)}`);
  return result.webhook;
}

function issuePaths(webhook: NormalizedWebhook): string[] {
  return webhook.issues.map((issue) => issue.path.join('.'));
}

describe('normalizeWebhookBody: the three shapes', () => {
  it('reads a v1 body with every field typed and no issues', () => {
    const webhook = accept(structuredClone(sampleV1Webhook));
    expect(webhook.shape).toBe('v1');
    if (webhook.shape !== 'v1') return;
    expect(webhook.sessionId).toBe(sampleV1Webhook.id);
    expect(webhook.startedAt).toEqual(new Date(sampleV1Webhook.startedAt));
    expect(webhook.startedAtIso).toBe(sampleV1Webhook.startedAt);
    expect(webhook.endedAt?.toISOString()).toBe(sampleV1Webhook.endedAt);
    expect(webhook.duration).toBe('95s');
    expect(webhook.durationMs).toBe(95_000);
    expect(webhook.scores).toEqual(sampleV1Webhook.scores);
    expect(webhook.validation).toBe('AUTOMATIC');
    expect(webhook.detailsURL).toBe(sampleV1Webhook.detailsURL);
    expect(webhook.status).toBeUndefined();
    expect(webhook.issues).toEqual([]);
  });

  it('reads a status body with nested groups normalised', () => {
    const webhook = accept(structuredClone(sampleStatusWebhook));
    expect(webhook.shape).toBe('status');
    if (webhook.shape !== 'status') return;
    expect(webhook.status).toBe('APPROVED');
    expect(webhook.event).toBe('session.completed');
    expect(webhook.timestamp?.toISOString()).toBe(sampleStatusWebhook.timestamp);
    expect(webhook.confidenceScore).toBe(97.5);
    expect(webhook.userData).toEqual(sampleStatusWebhook.userData);
    expect(webhook.validationResults?.facialMatch).toEqual({
      passed: true,
      score: 91.7,
      raw: { passed: true, score: 91.7 },
    });
    expect(webhook.metadata?.ipAddress).toBe('203.0.113.24');
    expect(webhook.scores).toBeUndefined();
    expect(webhook.issues).toEqual([]);
  });

  it('reads a body with both groups as shape "both"', () => {
    const webhook = accept(structuredClone(sampleCombinedWebhook));
    expect(webhook.shape).toBe('both');
    if (webhook.shape !== 'both') return;
    expect(webhook.status).toBe('APPROVED');
    expect(webhook.scores?.total).toBe(95.4);
    expect(webhook.issues).toEqual([]);
  });

  it('keeps unknown properties on raw and never reports them', () => {
    const body = { ...structuredClone(sampleStatusWebhook), riskTier: 'low', extra: { nested: [1, 2] } };
    const webhook = accept(body);
    expect(webhook.raw).toBe(body);
    expect(webhook.raw.riskTier).toBe('low');
    expect(webhook.issues).toEqual([]);
  });
});

describe('normalizeWebhookBody: property name variants', () => {
  it('accepts snake_case with the aliases verification_status and confidence_score', () => {
    const webhook = accept(structuredClone(sampleSnakeCaseStatusWebhook));
    if (webhook.shape !== 'status') throw new Error(`shape ${webhook.shape}`);
    expect(webhook.sessionId).toBe(sampleStatusWebhook.sessionId);
    expect(webhook.status).toBe('REJECTED');
    expect(webhook.confidenceScore).toBe(42);
    expect(webhook.userData?.documentNumber).toBe('X1234567L');
    expect(webhook.validationResults).toEqual({
      documentAuthenticity: { passed: true, raw: 'PASSED' },
      facialMatch: { passed: false, raw: false },
      livenessDetection: { score: 38, raw: 38 },
    });
    expect(webhook.metadata?.ipAddress).toBe('2001:db8::24');
    expect(webhook.metadata?.geolocation).toBe('Madrid, ES');
    expect(webhook.issues).toEqual([]);
  });

  it('accepts the specification group titles (SessionID, Verification Status, Device Information)', () => {
    const webhook = accept(structuredClone(sampleTitleCaseStatusWebhook));
    if (webhook.shape !== 'status') throw new Error(`shape ${webhook.shape}`);
    expect(webhook.status).toBe('PENDING');
    expect(webhook.confidenceScore).toBe(63.5);
    expect(webhook.userData?.dateOfBirth).toBe('1990-04-01');
    expect(webhook.validationResults?.livenessDetection).toEqual({ passed: false, raw: 'FAILED' });
    expect(webhook.metadata?.device).toEqual({ os: 'Android' });
    expect(webhook.issues).toEqual([]);
  });

  it.each([['sessionId'], ['session_id'], ['SessionID'], ['session-id'], ['SESSION_ID'], ['Session Id']])(
    'finds the session id spelled %s',
    (key) => {
      expect(accept({ [key]: 'abc', status: 'APPROVED' }).sessionId).toBe('abc');
    },
  );

  it.each([['verificationStatus'], ['verification_status'], ['Verification Status'], ['STATUS']])(
    'reads %s as status',
    (key) => {
      const webhook = accept({ sessionId: 'abc', [key]: 'ERROR' });
      expect(webhook.shape === 'status' && webhook.status).toBe('ERROR');
    },
  );

  it('prefers the exact spelling when two spellings of one field are present, and reports the other', () => {
    const webhook = accept({ session_id: 'x', sessionId: 'x', status: 'approved_typo', STATUS: 'PENDING' });
    expect(webhook.sessionId).toBe('x');
    expect(webhook.shape === 'status' && webhook.status).toBeUndefined();
    expect(webhook.issues.map((i) => i.message).join('\n')).toMatch(/also present as "session_id"/);
    expect(issuePaths(webhook)).toContain('status');
  });
});

describe('normalizeWebhookBody: field rules', () => {
  const v1 = () => structuredClone(sampleV1Webhook) as Record<string, unknown>;
  const status = () => structuredClone(sampleStatusWebhook) as Record<string, unknown>;

  it.each([
    ['startedAt', '2026-11-21 10:13:55'],
    ['startedAt', 1_700_000_000],
    ['endedAt', 'yesterday'],
    ['duration', '95'],
    ['duration', '95 seconds'],
    ['duration', 95],
    ['detailsURL', 'not a url'],
    ['detailsURL', 'ftp://kyc.example.com/api/v1/kyc/session/x'],
    ['validation', 'SEMI'],
    ['validation', true],
    ['shortKey', ''],
    ['scores', [1, 2, 3]],
  ])('reports malformed v1 field %s = %j and leaves it out', (field, value) => {
    const body = { ...v1(), [field]: value };
    const webhook = accept(body);
    expect(issuePaths(webhook)).toContain(field);
    expect((webhook as unknown as Record<string, unknown>)[field]).toBeUndefined();
    expect(webhook.sessionId).toBe(sampleV1Webhook.id);
  });

  it.each([
    ['document', 101],
    ['liveness', -1],
    ['oneToOne', '91.7'],
    ['total', null],
    ['total', Number.NaN],
  ])('reports score %s = %j out of 0–100 or not a number, keeps the valid scores', (name, value) => {
    const body = v1();
    body.scores = { ...sampleV1Webhook.scores, [name]: value };
    const webhook = accept(body);
    expect(issuePaths(webhook)).toEqual([`scores.${name}`]);
    const scores = webhook.shape === 'v1' ? webhook.scores : undefined;
    expect(scores?.[name as keyof typeof scores]).toBeUndefined();
    expect(Object.keys(scores ?? {})).toHaveLength(3);
  });

  it('accepts the boundary scores 0 and 100', () => {
    const body = v1();
    body.scores = { document: 0, liveness: 100, oneToOne: 0.5, total: 99.99 };
    expect(accept(body).issues).toEqual([]);
  });

  it.each([
    ['95s', 95_000],
    ['250ms', 250],
    ['3m', 180_000],
    ['1h', 3_600_000],
    ['1h2m3.5s', 3_723_500],
    ['1.5s', 1500],
  ])('reads duration %s as %d ms', (duration, ms) => {
    const webhook = accept({ ...v1(), duration });
    expect(webhook.shape === 'v1' && webhook.durationMs).toBe(ms);
  });

  it('accepts timestamps with an offset or without fractional seconds', () => {
    const webhook = accept({ ...v1(), startedAt: '2026-11-21T11:13:55+01:00', endedAt: '2026-11-21T10:15:30Z' });
    expect(webhook.issues).toEqual([]);
    expect(webhook.shape === 'v1' && webhook.startedAt?.toISOString()).toBe('2026-11-21T10:13:55.000Z');
  });

  it('reports a detailsURL that points at another session', () => {
    const webhook = accept({ ...v1(), detailsURL: 'https://kyc.example.com/api/v1/kyc/session/other' });
    expect(issuePaths(webhook)).toEqual(['detailsURL']);
  });

  it('reads a lower-case enum value but says so', () => {
    const webhook = accept({ ...status(), status: 'approved' });
    expect(webhook.shape === 'status' && webhook.status).toBe('APPROVED');
    expect(webhook.issues).toEqual([{ path: ['status'], message: expect.stringContaining('upper case') }]);
  });

  it.each([
    ['status', 'MAYBE'],
    ['status', 3],
    ['confidenceScore', 100.5],
    ['confidenceScore', '97'],
    ['timestamp', 'now'],
    ['event', 42],
    ['event', 'session.started'],
    ['userData', 'Ana'],
    ['validationResults', null],
    ['metadata', 7],
  ])('reports malformed status field %s = %j', (field, value) => {
    const webhook = accept({ ...status(), [field]: value });
    expect(issuePaths(webhook)).toContain(field);
  });

  it.each([
    [{ dateOfBirth: '01/04/1990' }, 'userData.dateOfBirth'],
    [{ dateOfBirth: '1990-13-01' }, 'userData.dateOfBirth'],
    [{ name: 7 }, 'userData.name'],
    [{ nationality: ['ES'] }, 'userData.nationality'],
  ])('reports malformed user data %j', (patch, path) => {
    const body = status();
    body.userData = { ...sampleStatusWebhook.userData, ...patch };
    expect(issuePaths(accept(body))).toEqual([path]);
  });

  it.each([
    [true, { passed: true, raw: true }],
    [87, { score: 87, raw: 87 }],
    ['pass', { passed: true, raw: 'pass' }],
    ['NO MATCH', { passed: false, raw: 'NO MATCH' }],
    [
      { result: 'FAILED', confidence: 12 },
      { passed: false, score: 12, raw: { result: 'FAILED', confidence: 12 } },
    ],
    [{ Score: 70 }, { score: 70, raw: { Score: 70 } }],
  ])('normalises validation check %j', (value, expected) => {
    const body = status();
    body.validationResults = { ...sampleStatusWebhook.validationResults, facialMatch: value };
    const webhook = accept(body);
    expect(webhook.shape === 'status' && webhook.validationResults?.facialMatch).toEqual(expected);
    expect(webhook.issues).toEqual([]);
  });

  it.each([[120], ['MAYBE'], [{ note: 'x' }], [{ passed: true, score: 200 }], [null], [[true]]])(
    'reports an unreadable validation check %j',
    (value) => {
      const body = status();
      body.validationResults = { ...sampleStatusWebhook.validationResults, facialMatch: value };
      const webhook = accept(body);
      expect(issuePaths(webhook)).toEqual(['validationResults.facialMatch']);
      expect(webhook.shape === 'status' && webhook.validationResults?.facialMatch).toBeUndefined();
    },
  );

  it.each([['999.1.1.1'], ['localhost'], [1234]])('reports a malformed metadata IP %j', (ipAddress) => {
    const body = status();
    body.metadata = { ...sampleStatusWebhook.metadata, ipAddress };
    expect(issuePaths(accept(body))).toEqual(['metadata.ipAddress']);
  });

  it('reports every missing field of a present group', () => {
    const webhook = accept({ sessionId: 's1', status: 'APPROVED' });
    expect(issuePaths(webhook).sort()).toEqual(
      ['confidenceScore', 'event', 'metadata', 'timestamp', 'userData', 'validationResults'].sort(),
    );
    const scoresOnly = accept({ id: 's1', scores: { total: 50 } });
    expect(issuePaths(scoresOnly)).toEqual(
      expect.arrayContaining(['shortKey', 'scores.document', 'scores.liveness', 'scores.oneToOne']),
    );
  });
});

describe('normalizeWebhookBody: rejections', () => {
  it.each([[null], [[]], ['text'], [42], [true], [undefined]])('rejects %j as not an object', (value) => {
    const result = normalizeWebhookBody(value);
    expect(result).toMatchObject({ ok: false, code: 'not_an_object' });
  });

  it.each([[{}], [{ status: 'APPROVED' }], [{ id: '' }], [{ sessionId: 42 }], [{ id: 'x'.repeat(257) }]])(
    'rejects %j without a usable session id',
    (value) => {
      const result = normalizeWebhookBody(value);
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.code).toBe('missing_session_id');
        expect(result.issues.length).toBeGreaterThan(0);
      }
    },
  );

  it('rejects a body whose id and sessionId disagree', () => {
    const result = normalizeWebhookBody({ id: 'a', sessionId: 'b' });
    expect(result).toMatchObject({ ok: false, code: 'conflicting_session_id' });
  });

  it('accepts id and sessionId that agree', () => {
    expect(accept({ ...structuredClone(sampleCombinedWebhook) }).sessionId).toBe(sampleV1Webhook.id);
  });

  it('never throws and never reports an issue without a path array, whatever JSON arrives', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const result = normalizeWebhookBody(value);
        for (const issue of result.ok ? result.webhook.issues : result.issues) {
          expect(Array.isArray(issue.path)).toBe(true);
          expect(typeof issue.message).toBe('string');
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws on objects built from the known field names with arbitrary values', () => {
    const names = [
      'id',
      'sessionId',
      'session_id',
      'scores',
      'status',
      'userData',
      'validation_results',
      'metadata',
      'detailsURL',
    ];
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...names), fc.jsonValue()), (value) => {
        normalizeWebhookBody(value);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('normalizeWebhookBody: every field decides the shape', () => {
  // shapeOf reads each field by name: a field added to one group must be added there too.
  const v1Fields = Object.keys(sampleV1Webhook).filter((name) => name !== 'id');
  const statusFields = Object.keys(sampleStatusWebhook).filter((name) => name !== 'sessionId');

  it.each(v1Fields)('"%s" beside "sessionId" makes a v1 body', (name) => {
    const body = { sessionId: 'sess_1', [name]: (sampleV1Webhook as Record<string, unknown>)[name] };
    expect(accept(body).shape).toBe('v1');
  });

  it.each(statusFields)('"%s" beside "id" makes a body with both groups', (name) => {
    const body = { id: 'sess_1', [name]: (sampleStatusWebhook as Record<string, unknown>)[name] };
    expect(accept(body).shape).toBe('both');
  });

  it('"id" alone makes a v1 body, "sessionId" alone a status body', () => {
    expect(accept({ id: 'sess_1' }).shape).toBe('v1');
    expect(accept({ sessionId: 'sess_1' }).shape).toBe('status');
  });
});
