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
    [
      { outcome: 'client_error', status: 401, responseSnippet: '{"error":{"code":"invalid_auth"}}' },
      /Bearer <Auth Key>/,
      'authentication',
    ],
  ] as const)('%o → cause, fix and the spec hint', (attempt, message, hint) => {
    const diagnosis = diagnoseAttempt(attempt);
    expect(diagnosis?.message).toMatch(message);
    expect(diagnosis?.hint).toBe(hint);
    if (hint) expect(SPEC_HINTS[hint]).toMatch(/spec §7/);
  });
});

describe('diagnoseAttempt: a refused signature is not a refused Auth Key', () => {
  const ours = (code: string) => JSON.stringify({ error: { code, message: 'The webhook signature was refused.' } });

  it.each([
    [ours('invalid_signature'), 401],
    ['{"message":"No matching signature found"}', 401],
    ['Invalid Signature', 403],
  ])('%s (%i) on a signed attempt: what the answer says, and an old secret on the endpoint', (snippet, status) => {
    const diagnosis = diagnoseAttempt({ outcome: 'client_error', status, responseSnippet: snippet, signed: true });
    expect(diagnosis?.message).toMatch(/refused the webhook signature .*not the Auth Key/);
    expect(diagnosis?.message).toMatch(/may hold an old one/);
    expect(diagnosis?.message).not.toMatch(/must accept the header "Authorization/);
    expect(diagnosis?.hint).toBe('authentication');
  });

  it('a stale timestamp is about the endpoint clock', () => {
    const diagnosis = diagnoseAttempt({
      outcome: 'client_error',
      status: 401,
      responseSnippet: ours('stale_signature'),
      signed: true,
    });
    expect(diagnosis?.message).toMatch(/timestamp.*clock/);
  });

  it('a signature asked of an unsigned attempt: sign, or stop requiring it', () => {
    const diagnosis = diagnoseAttempt({
      outcome: 'client_error',
      status: 401,
      responseSnippet: ours('missing_signature'),
      signed: false,
    });
    expect(diagnosis?.message).toMatch(/was not signed.*signing secret/);
    expect(diagnosis?.message).not.toMatch(/old one/);
  });
});
