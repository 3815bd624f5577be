import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { BASE_URL, createTestClient, PASSWORD, sampleDetails, USERNAME, useMsw } from '../test/support/msw.js';
import {
  KycApiError,
  KycAuthenticationError,
  KycConflictError,
  KycError,
  KycInvalidRequestError,
  KycNotFoundError,
  KycPermissionError,
  KycRateLimitError,
  KycResponseValidationError,
  KycServerError,
} from './index.js';

const { server, requests } = useMsw();
const SESSION = 'sess_8f14e45fceea167a';

function answerDetails(overrides: Record<string, unknown> = {}) {
  server.use(http.all('*', () => HttpResponse.json(sampleDetails(overrides))));
}

describe('finishSession', () => {
  it('POSTs {"sessionId"} as JSON with HTTP Basic to {baseUrl}/api/v1/kyc/session/finish', async () => {
    answerDetails({ id: SESSION });
    const { client } = createTestClient();
    const details = await client.finishSession(SESSION);
    expect(details.id).toBe(SESSION);
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe(`${BASE_URL}/api/v1/kyc/session/finish`);
    expect(request?.headers.get('content-type')).toBe('application/json');
    expect(request?.headers.get('authorization')).toBe(`Basic ${btoa(`${USERNAME}:${PASSWORD}`)}`);
    expect(await request?.json()).toEqual({ sessionId: SESSION });
  });

  it('encodes non-ASCII credentials as UTF-8 (RFC 7617)', async () => {
    answerDetails();
    const { client } = createTestClient({ username: 'zoë', password: 'pässwörd-ñ' });
    await client.finishSession(SESSION);
    const header = requests[0]?.headers.get('authorization') ?? '';
    const bytes = Uint8Array.from(atob(header.replace('Basic ', '')), (c) => c.charCodeAt(0));
    expect(new TextDecoder().decode(bytes)).toBe('zoë:pässwörd-ñ');
  });

  it('sends extra headers but never lets them replace authorization', async () => {
    answerDetails();
    const { client } = createTestClient({ headers: { 'X-Tenant': 't1', Authorization: 'Bearer nope' } });
    await client.finishSession(SESSION);
    expect(requests[0]?.headers.get('x-tenant')).toBe('t1');
    expect(requests[0]?.headers.get('authorization')).toBe(`Basic ${btoa(`${USERNAME}:${PASSWORD}`)}`);
  });
});

describe('getSession', () => {
  it.each([
    ['a/b', 'a%2Fb'],
    ['../x', '..%2Fx'],
    ['sesión-ü-🙂', encodeURIComponent('sesión-ü-🙂')],
    ['a b?c#d', 'a%20b%3Fc%23d'],
    ['%2e%2e', '%252e%252e'],
    ['a\\b', 'a%5Cb'],
  ])('GETs the session URL with the id %j percent-encoded', async (id, encoded) => {
    answerDetails();
    const { client } = createTestClient();
    await client.getSession(id);
    expect(requests[0]?.method).toBe('GET');
    expect(requests[0]?.url).toBe(`${BASE_URL}/api/v1/kyc/session/${encoded}`);
  });

  it.each([
    ['https://kyc.example.test', 'https://kyc.example.test/api/v1/kyc/session/s1'],
    ['https://kyc.example.test/', 'https://kyc.example.test/api/v1/kyc/session/s1'],
    ['https://kyc.example.test/proxy/kyc', 'https://kyc.example.test/proxy/kyc/api/v1/kyc/session/s1'],
    ['https://kyc.example.test/proxy/kyc/', 'https://kyc.example.test/proxy/kyc/api/v1/kyc/session/s1'],
    ['http://kyc.example.test:8443//', 'http://kyc.example.test:8443/api/v1/kyc/session/s1'],
  ])('with baseUrl %s requests %s', async (baseUrl, expected) => {
    answerDetails();
    const { client } = createTestClient({ baseUrl });
    await client.getSession('s1');
    expect(requests[0]?.url).toBe(expected);
  });

  it.each([
    ['', 'empty'],
    [42, 'a number'],
    [undefined, 'undefined'],
    [null, 'null'],
    ['x'.repeat(257), 'too long'],
    ['.', 'a dot segment'],
    ['..', 'a dot-dot segment'],
    ['a\uD800b', 'a lone high surrogate'],
    ['\uDC00', 'a lone low surrogate'],
  ])('rejects the id %j (%s) before any request', async (id, _label) => {
    const { client } = createTestClient();
    const error = await client.getSession(id as string).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KycInvalidRequestError);
    expect(error).toMatchObject({ reason: 'invalid_session_id' });
    expect((error as Error).message).toMatch(/sessionId/);
    await expect(client.finishSession(id as string)).rejects.toBeInstanceOf(KycInvalidRequestError);
    expect(requests).toHaveLength(0);
  });
});

describe('responses', () => {
  it('keeps properties the contract does not know (forward compatibility)', async () => {
    answerDetails({ riskLevel: 'low', nested: { a: 1 } });
    const { client } = createTestClient();
    const details = await client.getSession(SESSION);
    expect(details).toMatchObject({ riskLevel: 'low', nested: { a: 1 }, state: 'FINISHED' });
  });

  it('rejects a 200 missing a required field with KycResponseValidationError and the zod issues', async () => {
    const { state: _state, ...withoutState } = sampleDetails();
    server.use(http.get('*', () => HttpResponse.json(withoutState, { headers: { 'x-request-id': 'req_v1' } })));
    const { client } = createTestClient();
    const error = await client.getSession(SESSION).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KycResponseValidationError);
    expect(error).toMatchObject({ reason: 'schema_mismatch', status: 200, requestId: 'req_v1' });
    const issues = (error as KycResponseValidationError).issues;
    expect(issues.map((issue) => issue.path)).toEqual([['state']]);
    expect((error as Error).message).toContain('state');
  });

  it.each([
    [{ state: 'DONE' }, ['state'], 'expected one of IN_PROGRESS, FINISHED'],
    [{ id: 7 }, ['id'], 'expected string, got number'],
    [{ shortKey: '' }, ['shortKey'], 'expected length >= 1'],
    [{ scores: { document: 1, liveness: 2, oneToOne: 3, total: 101 } }, ['scores', 'total'], 'expected value <= 100'],
    [{ startedAt: 'yesterday-private-note' }, ['startedAt'], 'expected a valid datetime'],
    [{ duration: 'ninety-private-note' }, ['duration'], 'expected a duration such as'],
  ])('explains a mismatch %j by path and rule, without echoing the value', async (overrides, path, rule) => {
    answerDetails(overrides);
    const { client } = createTestClient();
    const error = (await client.getSession(SESSION).catch((e: unknown) => e)) as KycResponseValidationError;
    expect(error).toBeInstanceOf(KycResponseValidationError);
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]?.path).toEqual(path);
    expect(error.issues[0]?.message).toContain(rule);
    expect(error.message).toContain(`${path.join('.')}: ${rule}`);
    expect(JSON.stringify(error)).not.toContain('private-note');
    expect(error.message).not.toContain('private-note');
  });

  it('rejects a 200 with a wrongly typed field', async () => {
    answerDetails({ scores: { document: 'high' } });
    const { client } = createTestClient();
    await expect(client.getSession(SESSION)).rejects.toMatchObject({ reason: 'schema_mismatch' });
  });

  it.each(['{"id": "s1", ', '<html>oops</html>', ''])('turns malformed JSON %j into a typed error', async (text) => {
    server.use(http.get('*', () => new HttpResponse(text, { status: 200 })));
    const { client } = createTestClient();
    const error = await client.getSession(SESSION).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KycResponseValidationError);
    expect(error).toMatchObject({ reason: 'invalid_json', issues: [] });
    expect(requests).toHaveLength(1);
  });
});

describe('error statuses', () => {
  const errorBody = { error: { code: 'SESSION_NOT_FOUND', message: 'No session with id "x".' } };
  it.each([
    [400, KycApiError],
    [401, KycAuthenticationError],
    [403, KycPermissionError],
    [404, KycNotFoundError],
    [409, KycConflictError],
    [422, KycApiError],
    [429, KycRateLimitError],
    [500, KycServerError],
    [501, KycServerError],
    [502, KycServerError],
    [503, KycServerError],
    [504, KycServerError],
  ])('%i → %s with status, code, message, requestId and body', async (status, ErrorClass) => {
    server.use(http.all('*', () => HttpResponse.json(errorBody, { status, headers: { 'x-request-id': 'req_42' } })));
    const { client } = createTestClient({ maxRetries: 0 });
    const error = await client.getSession(SESSION).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ErrorClass);
    expect(error).toBeInstanceOf(KycApiError);
    expect(error).toBeInstanceOf(KycError);
    expect((error as Error).name).toBe(ErrorClass.name);
    expect(error).toMatchObject({ status, code: 'SESSION_NOT_FOUND', requestId: 'req_42', body: errorBody });
    expect((error as Error).message).toContain('No session with id "x".');
    expect((error as Error).message).toContain('req_42');
  });

  it('keeps a non-JSON error body as text, without a code', async () => {
    server.use(http.all('*', () => new HttpResponse('<h1>Bad Gateway</h1>', { status: 502 })));
    const { client } = createTestClient({ maxRetries: 0 });
    const error = await client.finishSession(SESSION).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KycServerError);
    expect(error).toMatchObject({ status: 502, code: undefined, requestId: undefined, body: '<h1>Bad Gateway</h1>' });
  });

  it.each([
    [404, '{"error": {"code": "SESSION_NOT_FOUND", ', KycNotFoundError],
    [500, '<html>Internal Server Error</html>', KycServerError],
    [401, '', KycAuthenticationError],
  ])(
    'maps a %i with a malformed body to its class, keeping the text and the request id',
    async (status, text, ErrorClass) => {
      server.use(http.all('*', () => new HttpResponse(text, { status, headers: { 'x-request-id': 'req_bad_body' } })));
      const { client } = createTestClient({ maxRetries: 0 });
      const error = await client.getSession(SESSION).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ErrorClass);
      expect(error).toMatchObject({ status, code: undefined, requestId: 'req_bad_body', body: text });
      expect((error as Error).message).toContain('req_bad_body');
    },
  );

  it('caps a long non-JSON error body', async () => {
    server.use(http.all('*', () => new HttpResponse('x'.repeat(10_000), { status: 400 })));
    const { client } = createTestClient();
    const error = (await client.getSession(SESSION).catch((e: unknown) => e)) as KycApiError;
    expect(typeof error.body).toBe('string');
    expect((error.body as string).length).toBeLessThan(2100);
  });

  it('does not follow a redirect (the Basic credentials must not travel to its target)', async () => {
    server.use(
      http.get(
        `${BASE_URL}/*`,
        () => new HttpResponse(null, { status: 302, headers: { location: 'https://evil.test/x' } }),
      ),
      http.get('https://evil.test/*', () => HttpResponse.json(sampleDetails())),
    );
    const { client } = createTestClient();
    const error = await client.getSession(SESSION).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KycApiError);
    expect(error).toMatchObject({ status: 302 });
    expect((error as Error).message).toMatch(/redirect/);
    expect(requests.map((request) => new URL(request.url).host)).toEqual(['kyc.example.test']);
  });
});
