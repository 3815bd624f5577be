import { inspect } from 'node:util';
import { delay, HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { BASE_URL, createTestClient, PASSWORD, sampleDetails, USERNAME, useMsw } from '../test/support/msw.js';
import { KycClient, KycError } from './index.js';

const { server } = useMsw();
const TOKEN = btoa(`${USERNAME}:${PASSWORD}`);
const API_KEY = 'k-extra-secret-value-123';

/** Every way a value is commonly turned into text. None may contain the password or its Basic encoding. */
function renderings(value: unknown): string[] {
  const texts = [
    String(value),
    inspect(value, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
    JSON.stringify(value),
  ];
  if (value instanceof Error) texts.push(value.message, value.stack ?? '', inspect(value.cause, { depth: 10 }));
  return texts;
}

function expectNoSecret(value: unknown): void {
  for (const text of renderings(value)) {
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(API_KEY);
  }
}

async function failure(promise: Promise<unknown>): Promise<KycError> {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(KycError);
  return error as KycError;
}

// A careless (or hostile) server that echoes what it received, credentials included.
function echoingServer(status: number) {
  server.use(
    http.all('*', ({ request }) =>
      HttpResponse.json(
        {
          error: {
            code: 'UNAUTHORIZED',
            message: `bad credentials: ${request.headers.get('authorization')} / ${PASSWORD}`,
          },
          received: { authorization: request.headers.get('authorization'), [PASSWORD]: PASSWORD, list: [PASSWORD] },
        },
        { status, headers: { 'x-request-id': `req-${PASSWORD}` } },
      ),
    ),
  );
}

describe('the password never leaks', () => {
  it('from the client: String, inspect, JSON, keys', () => {
    const { client } = createTestClient();
    expectNoSecret(client);
    expect(Object.keys(client)).toEqual([]);
    expect(JSON.parse(JSON.stringify(client))).toMatchObject({ baseUrl: BASE_URL, password: '[REDACTED]' });
    expect(inspect(client)).toContain('KycClient');
    expect(inspect(client)).toContain(BASE_URL);
  });

  it.each([401, 403, 404, 429, 500])('from a %i error whose body echoes the credentials', async (status) => {
    echoingServer(status);
    const { client } = createTestClient({ maxRetries: 0, headers: { 'x-api-key': API_KEY } });
    const error = await failure(client.getSession('s1'));
    expectNoSecret(error);
    expect(error.message).toContain('[REDACTED]');
    expect(error.request?.headers).toMatchObject({ authorization: '[REDACTED]', 'x-api-key': '[REDACTED]' });
  });

  it('from connection, timeout, validation, abort and argument errors', async () => {
    const { client } = createTestClient({ maxRetries: 0, timeoutMs: 30, headers: { 'x-api-key': API_KEY } });
    server.use(http.all('*', () => HttpResponse.error()));
    expectNoSecret(await failure(client.getSession('s1')));
    server.use(
      http.all('*', async () => {
        await delay(1000);
        return HttpResponse.json(sampleDetails());
      }),
    );
    expectNoSecret(await failure(client.getSession('s1')));
    server.use(http.all('*', () => HttpResponse.json({ echoed: PASSWORD })));
    expectNoSecret(await failure(client.getSession('s1')));
    expectNoSecret(await failure(client.getSession('s1', { signal: AbortSignal.abort() })));
    expectNoSecret(await failure(client.getSession('')));
    expectNoSecret(await failure(client.getSessionByDetailsUrl(`https://${USERNAME}:${PASSWORD}@evil.test/`)));
  });

  it.each([
    ['the password', PASSWORD],
    ['the Basic header', `Basic ${TOKEN}`],
    ['a short password', 'hunter22'],
  ])('from a 200 whose non-JSON body is %s (JSON.parse quotes the body)', async (_label, text) => {
    server.use(http.all('*', () => new HttpResponse(text, { status: 200 })));
    const { client } = createTestClient({ password: text === 'hunter22' ? 'hunter22' : PASSWORD });
    const error = await failure(client.getSession('s1'));
    expect(error).toMatchObject({ name: 'KycResponseValidationError', reason: 'invalid_json' });
    expectNoSecret(error);
    for (const rendering of renderings(error)) expect(rendering).not.toContain('hunter22');
  });

  it('from option errors', () => {
    for (const options of [{ timeoutMs: -1 }, { maxRetries: 99 }, { baseUrl: `https://a:${PASSWORD}@x.test` }]) {
      try {
        new KycClient({ baseUrl: BASE_URL, username: USERNAME, password: PASSWORD, ...options });
        expect.unreachable();
      } catch (error) {
        expectNoSecret(error);
      }
    }
  });

  it('from log lines and retry events', async () => {
    echoingServer(503);
    const lines: unknown[] = [];
    const events: unknown[] = [];
    const { client } = createTestClient({
      headers: { 'x-api-key': API_KEY },
      logger: { warn: (message, fields) => lines.push(message, fields) },
      onRetry: (event) => events.push(event),
    });
    expectNoSecret(await failure(client.finishSession('s1')));
    expect(lines).toHaveLength(4);
    expect(events).toHaveLength(2);
    expectNoSecret(lines);
    expectNoSecret(events);
  });
});
