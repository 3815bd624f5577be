import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { BASE_URL, createTestClient, PASSWORD, sampleDetails, USERNAME, useMsw } from '../test/support/msw.js';
import { type KycCallOptions, KycClient, type KycClientOptions, KycInvalidRequestError } from './index.js';

// Constructor and per-call options: every bad one is a KycInvalidRequestError naming it, before any request.
const { server, requests } = useMsw();
const SESSION = 'sess_options';

function answerDetails() {
  server.use(http.all('*', () => HttpResponse.json(sampleDetails())));
}

describe('options', () => {
  it.each([
    [{ baseUrl: 'kyc.example.test' }, /baseUrl/],
    [{ baseUrl: 'ftp://kyc.example.test' }, /baseUrl/],
    [{ baseUrl: 'https://u:p@kyc.example.test' }, /credentials/],
    [{ baseUrl: 'https://kyc.example.test/?x=1' }, /query/],
    [{ username: '' }, /username/],
    [{ username: 'a:b' }, /username/],
    [{ password: '' }, /password/],
    [{ timeoutMs: 0 }, /timeoutMs/],
    [{ deadlineMs: Number.NaN }, /deadlineMs/],
    [{ maxRetries: -1 }, /maxRetries/],
    [{ maxRetries: 1.5 }, /maxRetries/],
    [{ headers: { 'bad header': 'x' } }, /headers/],
  ])('refuses %j with KycInvalidRequestError', (override, message) => {
    const create = () => new KycClient({ baseUrl: BASE_URL, username: USERNAME, password: PASSWORD, ...override });
    expect(create).toThrow(KycInvalidRequestError);
    expect(create).toThrow(message);
  });

  it.each([
    [{ baseUrl: 42 }, /baseUrl/],
    [{ baseUrl: undefined }, /baseUrl/],
    [{ baseUrl: 'https://' }, /baseUrl/],
    [{ baseUrl: 'javascript:alert(1)' }, /baseUrl/],
    [{ baseUrl: 'https://kyc.example.test/#frag' }, /fragment/],
    [{ baseUrl: 'https://kyc.example.test/?' }, /query/],
    [{ username: 5 }, /username/],
    [{ username: undefined }, /username/],
    [{ password: 5 }, /password/],
    [{ password: undefined }, /password/],
    [{ timeoutMs: -1 }, /timeoutMs/],
    [{ timeoutMs: Number.POSITIVE_INFINITY }, /timeoutMs/],
    [{ timeoutMs: '100' }, /timeoutMs/],
    [{ timeoutMs: 2 ** 31 }, /timeoutMs/],
    [{ deadlineMs: 0 }, /deadlineMs/],
    [{ maxRetries: 11 }, /maxRetries/],
    [{ maxRetries: '2' }, /maxRetries/],
    [{ maxRetries: Number.NaN }, /maxRetries/],
    [{ fetch: 'fetch' }, /fetch/],
    [{ headers: 'x-a: b' }, /headers/],
    [{ headers: null }, /headers/],
    [{ headers: { 'x-a': 'line\nbreak' } }, /headers/],
    [{ onRetry: 1 }, /onRetry/],
    [{ logger: {} }, /logger/],
    [{ logger: () => {} }, /logger/],
    [{ sleep: 'no' }, /sleep/],
    [{ random: 0.5 }, /random/],
  ])('refuses the untyped option %j with a KycInvalidRequestError naming it', (override, message) => {
    const options = { baseUrl: BASE_URL, username: USERNAME, password: PASSWORD, ...override };
    const error = (() => {
      try {
        return new KycClient(options as unknown as KycClientOptions);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(KycInvalidRequestError);
    expect(error).toMatchObject({ reason: 'invalid_option' });
    expect((error as Error).message).toMatch(message);
  });

  it.each([undefined, null, 'https://kyc.example.test'])('refuses %j instead of an options object', (options) => {
    expect(() => new KycClient(options as unknown as KycClientOptions)).toThrow(KycInvalidRequestError);
  });

  it('accepts headers as a record, as pairs or as a Headers object', async () => {
    answerDetails();
    const forms = [{ 'X-Tenant': 't1' }, [['X-Tenant', 't1']], new Headers({ 'X-Tenant': 't1' })];
    for (const headers of forms) {
      const { client } = createTestClient({ headers: headers as unknown as Record<string, string> });
      await client.getSession(SESSION);
    }
    expect(requests.map((request) => request.headers.get('x-tenant'))).toEqual(['t1', 't1', 't1']);
    expect(requests.map((request) => request.headers.has('0'))).toEqual([false, false, false]);
  });

  it.each([
    ['null', null],
    ['a string', 'fast'],
    ['a signal that is not an AbortSignal', { signal: {} }],
    ['a signal given as a string', { signal: 'abort' }],
  ])('refuses call options that are %s, sending nothing', async (_label, options) => {
    answerDetails();
    const { client } = createTestClient();
    for (const call of [
      () => client.getSession(SESSION, options as KycCallOptions),
      () => client.finishSession(SESSION, options as KycCallOptions),
      () => client.getSessionByDetailsUrl(`${BASE_URL}/api/v1/kyc/session/s1`, options as KycCallOptions),
    ]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(KycInvalidRequestError);
      expect(error).toMatchObject({ reason: 'invalid_option' });
    }
    expect(requests).toHaveLength(0);
  });

  it('never repeats a baseUrl that carries credentials', () => {
    const error = (() => {
      try {
        return new KycClient({ baseUrl: `https://u:${PASSWORD}@kyc.example.test`, username: 'u', password: 'p' });
      } catch (caught) {
        return caught;
      }
    })();
    expect(String(error)).not.toContain(PASSWORD);
  });
});
