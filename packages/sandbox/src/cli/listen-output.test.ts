import { sampleStatusWebhook } from '@kyc/contracts';
import { describe, expect, it } from 'vitest';
import type { AttemptMessage } from '../listen/protocol.js';
import { authorizationNotice, formatDelivery, formatRecorded, maskAuthorization } from './listen-output.js';

const KEY = 'qT7#vLm2$Xw9pRz4!Kd8nB3eHs6';
const message: AttemptMessage = {
  type: 'attempt',
  id: 'a1',
  eventId: 'evt_1',
  attempt: 2,
  headers: { authorization: `Bearer ${KEY}`, 'webhook-id': 'evt_1' },
  body: JSON.stringify({ ...sampleStatusWebhook, sessionId: 'sess_1', status: 'PENDING' }),
  deadlineMs: 30_000,
};
const target = new URL('http://localhost:3000/webhooks/kyc');
const at = new Date(2026, 10, 26, 10, 15, 30);

describe('the listen terminal', () => {
  it('masks an Auth Key to Bearer •••• and its last four characters', () => {
    expect(maskAuthorization(`Bearer ${KEY}`)).toBe('Bearer ••••eHs6');
    expect(maskAuthorization(undefined)).toBe('(none)');
  });

  it('says once which key deliveries carry, or that none is set and where to set it', () => {
    expect(authorizationNotice('eHs6')).toBe(
      'Deliveries carry Authorization: Bearer ••••eHs6: your receiver must expect that key.',
    );
    expect(authorizationNotice(null)).toMatch(/^No Auth Key is set, .* Settings → My company → Edit/);
  });

  it('prints one line for a delivered attempt, and no fix', () => {
    expect(formatDelivery(at, message, { status: 200, latencyMs: 4.2, snippet: '' }, target)).toBe(
      '10:15:30  evt_1  sess_1  PENDING   → 200  4 ms  attempt 2\n',
    );
  });

  it('adds the fix of a refused key with the key masked, never whole', () => {
    const text = formatDelivery(at, message, { status: 401, latencyMs: 1, snippet: KEY }, target);
    expect(text).toMatch(/→ 401 .*\n {10}fix: Your endpoint refused the credentials \(401\).*Bearer ••••eHs6\.\n$/);
    expect(text).not.toContain(KEY);
  });

  it('says what to do when nothing listens on this machine', () => {
    const text = formatDelivery(
      at,
      message,
      { failure: 'connect_error', message: 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:3000', latencyMs: 1 },
      target,
    );
    expect(text).toMatch(
      /✖ connect_error .*\n {10}fix: Nothing answers at http:\/\/localhost:3000 on this machine \(ECONNREFUSED\): start your server/,
    );
  });

  it('announces the retry, a final failure, and a verdict that differs from the local answer', () => {
    const recorded = { type: 'recorded', eventId: 'evt_1', attempt: 2, status: 200 } as const;
    expect(
      formatRecorded({ ...recorded, outcome: 'timeout', state: 'pending', nextAttemptAt: at.toISOString() }, 200),
    ).toBe(
      '          the service recorded attempt 2 as timeout (your answer came too late)\n          ↻ retry: attempt 3 at 10:15:30 (4 attempts per round)\n',
    );
    expect(formatRecorded({ ...recorded, outcome: 'server_error', state: 'failed', nextAttemptAt: null }, 500)).toMatch(
      /✖ evt_1 failed after its last attempt/,
    );
    expect(formatRecorded({ ...recorded, outcome: 'delivered', state: 'delivered', nextAttemptAt: null }, 200)).toBe(
      '',
    );
  });
});
