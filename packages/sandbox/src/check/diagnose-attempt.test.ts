import { describe, expect, it } from 'vitest';
import { diagnoseAttempt, SPEC_HINTS } from './diagnose-attempt.js';

describe('diagnoseAttempt', () => {
  it('says nothing about a delivered attempt', () => {
    expect(diagnoseAttempt({ outcome: 'delivered', status: 200 })).toBeUndefined();
  });

  it.each([
    [{ outcome: 'unexpected_2xx', status: 204 }, /only 200 counts as delivered.*return 200 explicitly/, undefined],
    [{ outcome: 'unexpected_2xx', status: 201 }, /answered 201/, undefined],
    [{ outcome: 'client_error', status: 401 }, /Authorization: Bearer <Auth Key>/, 'authentication'],
    [{ outcome: 'client_error', status: 404 }, /path/, 'no-webhooks'],
    [{ outcome: 'client_error', status: 400 }, /exist before use/, 'json'],
    [{ outcome: 'server_error', status: 500 }, /logs/, 'json'],
    [{ outcome: 'redirect', status: 301 }, /redirects are never followed/, 'no-webhooks'],
    [{ outcome: 'timeout' }, /answer 200 first and move the work to a background job/, 'timeouts'],
    [{ outcome: 'tls_error' }, /certificate/, 'no-webhooks'],
    [{ outcome: 'connect_error' }, /running and reachable/, 'no-webhooks'],
    [{ outcome: 'something_new' }, /something_new/, 'no-webhooks'],
  ] as const)('%o → cause, fix and the spec hint', (attempt, message, hint) => {
    const diagnosis = diagnoseAttempt(attempt);
    expect(diagnosis?.message).toMatch(message);
    expect(diagnosis?.hint).toBe(hint);
    if (hint) expect(SPEC_HINTS[hint]).toMatch(/spec §7/);
  });
});
