import { describe, expect, it } from 'vitest';
import { toLambdaHandler } from '../../aws-lambda.js';
import { createWebhookReceiver } from '../../receiver/create-webhook-receiver.js';
import { createLambdaEvent, type LambdaEventShape } from '../../testing/create-lambda-event.js';
import { createTestRequest } from '../../testing/create-test-request.js';
import { samples } from '../../testing/samples.js';
import { isWebhookError } from '../../webhook-error.js';

const KEY = 'kyc_lambda_Wq4Lx9Zc2Rv7Tn1B';
const shapes: readonly LambdaEventShape[] = ['api-gateway-v1', 'api-gateway-v2', 'function-url'];

function setup(maxBodyBytes?: number) {
  const runs: string[] = [];
  const receiver = createWebhookReceiver({
    authKeys: KEY,
    logger: {},
    ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
    onEvent: (event) => {
      runs.push(event.sessionId);
    },
  });
  return { runs, handler: toLambdaHandler(receiver) };
}

const delivery = (sessionId: string, authKey = KEY) =>
  createTestRequest({ payload: { ...samples.status, sessionId }, authKey, webhookId: `evt-${sessionId}` });

describe.each(shapes)('toLambdaHandler with %s events', (shape) => {
  it('reads a base64-encoded body (isBase64Encoded) like a text one, and dedupes across both', async () => {
    const { runs, handler } = setup();
    const encoded = await createLambdaEvent(delivery(`${shape}-b64`), { shape, base64: true });
    expect(encoded.isBase64Encoded).toBe(true);
    expect(await handler(encoded as never)).toMatchObject({ statusCode: 200, isBase64Encoded: false });
    expect((await handler((await createLambdaEvent(delivery(`${shape}-b64`), { shape })) as never)).statusCode).toBe(
      200,
    );
    expect(runs).toEqual([`${shape}-b64`]);
  });

  it('answers 400 to a body flagged base64 that is not, and 413 past the limit', async () => {
    const { runs, handler } = setup(64);
    const event = await createLambdaEvent(delivery(`${shape}-bad64`), { shape });
    expect((await handler({ ...event, isBase64Encoded: true, body: '{"not": base64}' } as never)).statusCode).toBe(400);
    expect((await handler(event as never)).statusCode).toBe(413);
    expect(runs).toEqual([]);
  });

  it('answers 405 with the receiver’s headers to another method', async () => {
    const { handler } = setup();
    const event = await createLambdaEvent(createTestRequest({ payload: '', method: 'GET', authKey: KEY }), { shape });
    const result = await handler(event as never);
    expect(result.statusCode).toBe(405);
    expect(result.headers.allow).toBe('POST');
  });
});

describe('toLambdaHandler, payload 1.0 details', () => {
  it('finds headers whatever their case, and in multiValueHeaders when headers is null', async () => {
    const { runs, handler } = setup();
    const event = await createLambdaEvent(delivery('v1-multi'), { shape: 'api-gateway-v1' });
    expect(Object.keys(event.headers as object)).toContain('Authorization');
    expect((await handler({ ...event, headers: null } as never)).statusCode).toBe(200);
    expect(runs).toEqual(['v1-multi']);
  });

  it('joins the values of a repeated header, so a second Authorization is refused (401), not picked from', async () => {
    const { runs, handler } = setup();
    const event = await createLambdaEvent(delivery('v1-twice'), { shape: 'api-gateway-v1' });
    const multi = {
      ...(event.multiValueHeaders as Record<string, string[]>),
      Authorization: [`Bearer ${KEY}`, 'Bearer x'],
    };
    expect((await handler({ ...event, multiValueHeaders: multi } as never)).statusCode).toBe(401);
    expect(runs).toEqual([]);
  });
});

describe('toLambdaHandler refuses events from other triggers with a typed error', () => {
  const { handler } = setup();
  const cases: [string, unknown, RegExp][] = [
    ['null', null, /is null/],
    ['a string', 'POST', /is string/],
    ['an SQS batch', { Records: [{ eventSource: 'aws:sqs', body: '{}' }] }, /neither httpMethod/],
    ['a 2.0 event without requestContext.http', { version: '2.0', headers: {} }, /no requestContext\.http\.method/],
    [
      'a body that is not a string',
      { httpMethod: 'POST', headers: {}, body: { sessionId: 'x' } },
      /body.*not a string/,
    ],
    [
      'headers that are not an object',
      { httpMethod: 'POST', headers: 'authorization', body: '' },
      /headers.*not an object/,
    ],
  ];
  it.each(cases)('%s', async (_, event, message) => {
    const error: unknown = await handler(event as never).catch((caught: unknown) => caught);
    expect(isWebhookError(error) && error.code).toBe('unsupported_event');
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toMatch(/API Gateway/);
  });
});
