import {
  API_BASE_PATH,
  HEADERS,
  JSON_CONTENT_TYPE,
  SESSION_FINISH_PATH,
  SESSION_PATH,
  sampleApiErrorBody,
  sampleCombinedWebhook,
  sampleSessionDetails,
  sampleStatusWebhook,
  sampleV1Webhook,
  WEBHOOK_USER_AGENT,
} from '@kyc/contracts';
import { describe, expect, it } from 'vitest';
import { createContractChecker, type SeenResponse, type SeenWebhook } from './contract-checker.js';

const checker = createContractChecker();
const violations = (verdict: ReturnType<typeof checker.checkResponse>) =>
  verdict.covered ? verdict.violations : ['not covered'];

const answer = (
  over: Partial<SeenResponse> & { json?: unknown; headerList?: Record<string, string> },
): SeenResponse => ({
  method: 'GET',
  path: `${API_BASE_PATH}${SESSION_PATH}/sess_1`,
  status: 200,
  headers: new Headers({
    [HEADERS.contentType]: JSON_CONTENT_TYPE,
    [HEADERS.requestId]: 'req-1',
    ...over.headerList,
  }),
  body: JSON.stringify(over.json ?? sampleSessionDetails),
  ...over,
});

const delivery = (over: { body?: unknown; headerList?: Record<string, string | undefined> } = {}): SeenWebhook => {
  const headers = new Headers();
  const all: Record<string, string | undefined> = {
    [HEADERS.contentType]: JSON_CONTENT_TYPE,
    [HEADERS.userAgent]: WEBHOOK_USER_AGENT,
    [HEADERS.webhookId]: 'evt_1',
    [HEADERS.webhookTimestamp]: '1795256130',
    [HEADERS.webhookAttempt]: '1',
    ...over.headerList,
  };
  for (const [name, value] of Object.entries(all)) if (value !== undefined) headers.set(name, value);
  return { method: 'POST', headers, body: JSON.stringify(over.body ?? sampleStatusWebhook) };
};

describe('the contract checker judges service answers', () => {
  it('passes documented answers', () => {
    expect(violations(checker.checkResponse(answer({})))).toEqual([]);
    expect(
      violations(checker.checkResponse(answer({ method: 'POST', path: `${API_BASE_PATH}${SESSION_FINISH_PATH}` }))),
    ).toEqual([]);
    expect(violations(checker.checkResponse(answer({ status: 404, json: sampleApiErrorBody })))).toEqual([]);
    const limited = answer({ status: 429, json: { error: { code: 'RATE_LIMITED', message: 'wait' } } });
    limited.headers.set(HEADERS.retryAfter, '30');
    expect(violations(checker.checkResponse(limited))).toEqual([]);
  });

  it('reports a missing required header, a wrong body, a wrong header value and an undocumented status', () => {
    const noId = answer({});
    noId.headers.delete(HEADERS.requestId);
    expect(violations(checker.checkResponse(noId))).toEqual([
      `GET ${API_BASE_PATH}${SESSION_PATH}/sess_1 → 200: header X-Request-Id missing`,
    ]);
    expect(
      violations(checker.checkResponse(answer({ json: { ...sampleSessionDetails, state: 'DONE' } }))),
    ).toHaveLength(1);
    expect(violations(checker.checkResponse(answer({ status: 404, json: { error: 'flat' } })))).not.toEqual([]);
    const badWait = answer({ status: 429, json: { error: { code: 'RATE_LIMITED', message: 'wait' } } });
    badWait.headers.set(HEADERS.retryAfter, 'soon');
    expect(violations(checker.checkResponse(badWait))).toHaveLength(1);
    expect(violations(checker.checkResponse(answer({ status: 418 })))[0]).toMatch(/status not in the document/);
    const html = answer({});
    html.headers.set(HEADERS.contentType, 'text/html');
    expect(violations(checker.checkResponse(html))[0]).toMatch(/content type text\/html/);
  });

  it('holds unknown API paths to the error body, and leaves paths outside the API alone', () => {
    const missing = answer({
      path: `${API_BASE_PATH}/nothing`,
      status: 404,
      json: { error: { code: 'NOT_FOUND', message: 'x' } },
    });
    expect(violations(checker.checkResponse(missing))).toEqual([]);
    expect(violations(checker.checkResponse({ ...missing, status: 200 }))).toHaveLength(1);
    expect(checker.checkResponse(answer({ path: '/sandbox/sessions', json: {} })).covered).toBe(false);
  });
});

describe('the contract checker judges webhook deliveries', () => {
  it('passes each body shape with the headers the engine sends, with or without an Auth Key', () => {
    for (const body of [sampleV1Webhook, sampleStatusWebhook, sampleCombinedWebhook]) {
      expect(violations(checker.checkWebhook(delivery({ body })))).toEqual([]);
    }
    expect(violations(checker.checkWebhook(delivery({ headerList: { [HEADERS.authorization]: 'Bearer k' } })))).toEqual(
      [],
    );
  });

  it('reports missing headers, a wrong user agent or signature, another credential and a wrong body', () => {
    const cases: Record<string, SeenWebhook> = {
      'no id': delivery({ headerList: { [HEADERS.webhookId]: undefined } }),
      'user agent': delivery({ headerList: { [HEADERS.userAgent]: 'curl/8' } }),
      signature: delivery({ headerList: { [HEADERS.webhookSignature]: 'sha256=abc' } }),
      basic: delivery({ headerList: { [HEADERS.authorization]: 'Basic YTpi' } }),
      'lower-case status': delivery({ body: { ...sampleStatusWebhook, status: 'approved' } }),
      'id only': delivery({ body: { id: 'sess_1' } }),
      'text body': { ...delivery(), body: 'not json' },
    };
    for (const [name, seen] of Object.entries(cases))
      expect(violations(checker.checkWebhook(seen)), name).not.toEqual([]);
  });
});

describe('the contract checker judges what a caller sends', () => {
  const finish = (body: string | undefined, type = JSON_CONTENT_TYPE) => ({
    method: 'POST',
    path: `${API_BASE_PATH}${SESSION_FINISH_PATH}`,
    headers: new Headers({ [HEADERS.contentType]: type }),
    body,
  });

  it('passes the documented finish request and a read without a body', () => {
    expect(violations(checker.checkRequest(finish('{"sessionId":"sess_1"}')))).toEqual([]);
    const read = {
      method: 'GET',
      path: `${API_BASE_PATH}${SESSION_PATH}/sess_1`,
      headers: new Headers(),
      body: undefined,
    };
    expect(violations(checker.checkRequest(read))).toEqual([]);
  });

  it('reports a body the document does not describe, a wrong content type and an unknown operation', () => {
    // The sandbox also accepts {"id"}; the contract a client is written against says sessionId.
    expect(violations(checker.checkRequest(finish('{"id":"sess_1"}')))).not.toEqual([]);
    expect(violations(checker.checkRequest(finish('{"sessionId":""}')))).not.toEqual([]);
    expect(violations(checker.checkRequest(finish('{"sessionId":"s"}', 'text/plain')))).toHaveLength(1);
    expect(violations(checker.checkRequest({ ...finish(undefined), method: 'DELETE' }))).toHaveLength(1);
    expect(checker.checkRequest({ ...finish('{}'), path: '/sandbox/sessions' }).covered).toBe(false);
  });
});
