import { sessionDetailsUrl } from '@kyc/contracts';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { BASE_URL, createTestClient, sampleDetails, useMsw } from '../test/support/msw.js';
import { KycInvalidRequestError } from './index.js';

const { server, requests } = useMsw();

function answerDetails() {
  server.use(http.all('*', () => HttpResponse.json(sampleDetails())));
}

describe('getSessionByDetailsUrl follows', () => {
  it.each([
    [BASE_URL, `${BASE_URL}/api/v1/kyc/session/s1`, `${BASE_URL}/api/v1/kyc/session/s1`],
    [`${BASE_URL}/`, `${BASE_URL}/api/v1/kyc/session/s1`, `${BASE_URL}/api/v1/kyc/session/s1`],
    [
      `${BASE_URL}/tenant/a/`,
      `${BASE_URL}/tenant/a/api/v1/kyc/session/s1`,
      `${BASE_URL}/tenant/a/api/v1/kyc/session/s1`,
    ],
    [BASE_URL, 'https://KYC.Example.TEST:443/api/v1/kyc/session/s1', `${BASE_URL}/api/v1/kyc/session/s1`],
    [BASE_URL, sessionDetailsUrl(BASE_URL, 'sesión ü 🙂'), sessionDetailsUrl(BASE_URL, 'sesión ü 🙂')],
    [
      'http://127.0.0.1:8080',
      'http://127.0.0.1:8080/api/v1/kyc/session/s1',
      'http://127.0.0.1:8080/api/v1/kyc/session/s1',
    ],
  ])('with baseUrl %s: %s → GET %s', async (baseUrl, detailsUrl, expected) => {
    answerDetails();
    const { client } = createTestClient({ baseUrl });
    await expect(client.getSessionByDetailsUrl(detailsUrl)).resolves.toMatchObject({ state: 'FINISHED' });
    expect(requests.map((request) => [request.method, request.url])).toEqual([['GET', expected]]);
    expect(requests[0]?.headers.get('authorization')).toMatch(/^Basic /);
  });

  it('treats a double-encoded dot-dot as a literal id, re-encoded (no traversal)', async () => {
    answerDetails();
    const { client } = createTestClient();
    await client.getSessionByDetailsUrl(`${BASE_URL}/api/v1/kyc/session/%252e%252e`);
    expect(requests[0]?.url).toBe(`${BASE_URL}/api/v1/kyc/session/%252e%252e`);
  });

  it('accepts the detailsURL of the contract fixture when configured for its service', async () => {
    answerDetails();
    const { client } = createTestClient({ baseUrl: 'https://kyc.example.com' });
    const url = sessionDetailsUrl('https://kyc.example.com', 'sess_8f14e45fceea167a');
    await client.getSessionByDetailsUrl(url);
    expect(requests[0]?.url).toBe(url);
  });
});

describe('getSessionByDetailsUrl refuses, sending nothing,', () => {
  const path = '/api/v1/kyc/session/s1';
  it.each([
    ['another host', `https://evil.test${path}`],
    ['a look-alike host', `https://kyc.example.test.evil.test${path}`],
    ['another scheme', `http://kyc.example.test${path}`],
    ['another port', `https://kyc.example.test:8443${path}`],
    ['userinfo', `https://user:pw@kyc.example.test${path}`],
    ['a username only', `https://user@kyc.example.test${path}`],
    ['an empty userinfo', `https://@kyc.example.test${path}`],
    ['the service as userinfo of another host', `https://kyc.example.test@evil.test${path}`],
    ['a look-alike base path', `${BASE_URL}/api/v1/kyc-evil/session/s1`],
    ['a longer base path segment', `${BASE_URL}/api/v1/kycx/session/s1`],
    ['another resource', `${BASE_URL}/api/v1/kyc/sessions/s1`],
    ['the finish endpoint', `${BASE_URL}/api/v1/kyc/session/finish/x`],
    ['a missing id', `${BASE_URL}/api/v1/kyc/session/`],
    ['no id segment', `${BASE_URL}/api/v1/kyc/session`],
    ['an extra segment', `${BASE_URL}/api/v1/kyc/session/s1/extra`],
    ['a trailing slash', `${BASE_URL}/api/v1/kyc/session/s1/`],
    ['a path prefix not configured', `${BASE_URL}/other/api/v1/kyc/session/s1`],
    ['a dot-dot segment', `${BASE_URL}/api/v1/kyc/session/x/../s1`],
    ['a dot segment', `${BASE_URL}/api/v1/kyc/session/./s1`],
    ['an encoded dot-dot segment', `${BASE_URL}/api/v1/kyc/session/%2e%2e/s1`],
    ['a mixed dot-dot segment', `${BASE_URL}/api/v1/kyc/session/.%2E/s1`],
    ['an id of ..', `${BASE_URL}/api/v1/kyc/session/..`],
    ['dot segments before the base path', `${BASE_URL}/x/../api/v1/kyc/session/s1`],
    ['an encoded single dot segment', `${BASE_URL}/api/v1/kyc/session/%2E/s1`],
    ['an encoded dot-dot segment before the base path', `${BASE_URL}/x/%2e%2e/api/v1/kyc/session/s1`],
    ['a trailing-dot host', `https://kyc.example.test.${path}`],
    ['a homoglyph host', `https://kyc.exаmple.test${path}`],
    ['the service host as a fragment after another host', `https://evil.test#@kyc.example.test${path}`],
    ['an encoded @ in the host', `https://kyc.example.test%40evil.test${path}`],
    ['a backslash before the host', `https:\\kyc.example.test${path}`],
    ['an explicit https port on http', `http://kyc.example.test:443${path}`],
    ['a data: URL', `data:text/plain,${BASE_URL}${path}`],
    ['an encoded slash', `${BASE_URL}/api/v1/kyc/session/a%2Fb`],
    ['an encoded backslash', `${BASE_URL}/api/v1/kyc/session/a%5cb`],
    ['a backslash', `${BASE_URL}\\api\\v1\\kyc\\session\\s1`],
    ['a tab', `${BASE_URL}/api/v1/kyc/ses\tsion/s1`],
    ['a newline', `${BASE_URL}/api/v1/kyc/session/s1\n`],
    ['a space', ` ${BASE_URL}${path}`],
    ['a query', `${BASE_URL}${path}?x=1`],
    ['a fragment', `${BASE_URL}${path}#top`],
    ['an empty query', `${BASE_URL}${path}?`],
    ['a relative URL', path],
    ['a javascript: URL', 'javascript:alert(1)'],
    ['bad percent-encoding', `${BASE_URL}/api/v1/kyc/session/%E0%A4%A`],
    ['an empty string', ''],
    ['a number', 42],
    ['undefined', undefined],
    ['an object', { href: `${BASE_URL}${path}` }],
  ])('%s', async (_label, detailsUrl) => {
    answerDetails();
    const { client } = createTestClient();
    const error = await client.getSessionByDetailsUrl(detailsUrl as string).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KycInvalidRequestError);
    expect(error).toMatchObject({ reason: 'details_url_refused' });
    expect((error as Error).message).toMatch(/^detailsURL refused: .+; no request was sent$/);
    expect(requests).toHaveLength(0);
  });

  it('refuses the service path without the configured prefix', async () => {
    answerDetails();
    const { client } = createTestClient({ baseUrl: `${BASE_URL}/tenant/a` });
    await expect(client.getSessionByDetailsUrl(`${BASE_URL}${path}`)).rejects.toBeInstanceOf(KycInvalidRequestError);
    await expect(client.getSessionByDetailsUrl(`${BASE_URL}/tenant/ab${path}`)).rejects.toBeInstanceOf(
      KycInvalidRequestError,
    );
    expect(requests).toHaveLength(0);
  });

  it('checks the id found in the URL like any other id', async () => {
    answerDetails();
    const { client } = createTestClient();
    const error = await client
      .getSessionByDetailsUrl(`${BASE_URL}/api/v1/kyc/session/${'x'.repeat(300)}`)
      .catch((e) => e);
    expect(error).toMatchObject({ name: 'KycInvalidRequestError', reason: 'invalid_session_id' });
    expect(requests).toHaveLength(0);
  });
});
