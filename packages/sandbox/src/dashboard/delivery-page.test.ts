import { type AttemptRecord, type DeliveryRecord, scaledClock } from '@kyc/delivery-engine';
import { describe, expect, it } from 'vitest';
import { attemptDetails } from '../portal/request-view.js';
import { deliveryPage } from './delivery-page.js';

const attempt = (n: number, unrecordedSends: number): AttemptRecord => ({
  attempt: n,
  round: 1,
  startedAt: Date.parse('2026-11-27T10:00:00.000Z') + n * 60_000,
  requestHeaders: { authorization: '[redacted]' },
  status: 200,
  outcome: 'delivered',
  dialedAddress: '203.0.113.7',
  latencyMs: 42,
  responseSnippet: 'ok',
  errorMessage: undefined,
  unrecordedSends,
});

const record = (log: AttemptRecord[]): DeliveryRecord => ({
  id: 'evt_1',
  url: 'https://company.example/kyc',
  state: 'delivered',
  body: '{}',
  hasAuthKey: true,
  attempts: log.length,
  roundAttempts: log.length,
  round: 1,
  createdAt: Date.parse('2026-11-27T10:00:00.000Z'),
  nextAttemptAt: undefined,
  finishedAt: undefined,
  lastOutcome: 'delivered',
  lastStatus: 200,
  attemptLog: log,
  redeliveries: [],
});

const page = (log: AttemptRecord[]) =>
  String(
    deliveryPage(
      {
        eventId: 'evt_1',
        sessionId: 's-1',
        shortKey: 'ABC123',
        test: false,
        state: 'delivered',
        attempts: log.length,
        lastOutcome: 'delivered',
        lastStatus: 200,
        createdAt: '2026-11-27T10:00:00.000Z',
        nextAttemptAt: null,
        note: null,
        request: {
          method: 'POST',
          url: 'https://company.example/kyc',
          toListener: false,
          headers: [],
          body: '{}',
          bodyBytes: 2,
        },
        attemptLog: attemptDetails(record(log), scaledClock(1), new Map(), new Map()),
        redeliveries: [],
        actions: [],
        canRedeliver: true,
      },
      'csrf',
      undefined,
    ),
  );

describe('the delivery inspector', () => {
  it('says when an attempt followed sends whose result was never recorded (why the endpoint saw it twice)', () => {
    const html = page([attempt(1, 1)]);
    expect(html).toContain('Sent once before without a recorded result');
    expect(page([attempt(1, 2)])).toContain('Sent 2 times before without a recorded result');
    expect(page([attempt(1, 0)])).not.toContain('without a recorded result');
  });
});
