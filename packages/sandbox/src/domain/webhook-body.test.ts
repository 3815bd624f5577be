import {
  normalizeWebhookBody,
  sessionDetailsSchema,
  VERIFICATION_STATUSES,
  webhookCombinedSchema,
  webhookStatusSchema,
  webhookV1Schema,
} from '@kyc/contracts';
import { describe, expect, it } from 'vitest';
import { PAYLOAD_SHAPES } from './enum-values.js';
import { resolveOutcome } from './outcome.js';
import type { SessionRecord } from './session-record.js';
import { buildWebhookBody, formatDuration, sessionDetails } from './webhook-body.js';

const base = 'http://127.0.0.1:8080';
const session = (
  shape: (typeof PAYLOAD_SHAPES)[number],
  status: (typeof VERIFICATION_STATUSES)[number],
): SessionRecord => ({
  id: 'sess_test',
  companyId: 1,
  shortKey: 'ABC234',
  state: 'IN_PROGRESS',
  outcome: resolveOutcome({ shape, status }),
  startedAt: Date.parse('2026-11-21T10:13:55.042Z'),
  endedAt: undefined,
});

describe('webhook bodies', () => {
  it.each(PAYLOAD_SHAPES.flatMap((shape) => VERIFICATION_STATUSES.map((status) => [shape, status] as const)))(
    'a %s body for %s passes the strict wire schema and the tolerant reader',
    (shape, status) => {
      const endedAt = Date.parse('2026-11-21T10:15:30.123Z');
      const body = buildWebhookBody(session(shape, status), endedAt, base);
      const schema = { v1: webhookV1Schema, status: webhookStatusSchema, both: webhookCombinedSchema }[shape];
      expect(schema.safeParse(body).success).toBe(true);
      const read = normalizeWebhookBody(JSON.parse(JSON.stringify(body)));
      expect(read.ok).toBe(true);
      if (!read.ok) return;
      expect(read.webhook.shape).toBe(shape);
      expect(read.webhook.sessionId).toBe('sess_test');
      expect(read.webhook.issues).toEqual([]);
      if (shape !== 'v1') expect(body).toMatchObject({ status });
      if (shape !== 'status') {
        expect(body).toMatchObject({ duration: '95s', detailsURL: `${base}/api/v1/kyc/session/sess_test` });
      }
    },
  );

  it('formats durations the contracts accept', () => {
    expect(formatDuration(250)).toBe('250ms');
    expect(formatDuration(95_400)).toBe('95s');
    expect(formatDuration(-5)).toBe('0ms');
  });
});

describe('session details', () => {
  it('hide the result while the session is in progress and show it once finished', () => {
    const open = sessionDetails(session('both', 'REJECTED'), base);
    expect(sessionDetailsSchema.parse(open)).toEqual(open);
    expect(open).not.toHaveProperty('status');
    expect(open).not.toHaveProperty('scores');
    const finished = sessionDetails(
      { ...session('both', 'REJECTED'), state: 'FINISHED', endedAt: Date.parse('2026-11-21T10:14:00.042Z') },
      base,
    );
    expect(finished).toMatchObject({ state: 'FINISHED', status: 'REJECTED', duration: '5s', validation: 'AUTOMATIC' });
  });
});
