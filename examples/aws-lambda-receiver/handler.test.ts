import type { RecordedDecision } from '@kyc/test-support';
import { REDIS_URL, redisAvailable } from '@kyc/test-support';
import { EXAMPLE_SIGNING_SECRETS, signatureHeaders } from '@kyc/test-support/signing';
import { createLambdaEvent, createTestRequest, type LambdaEventShape, samples } from '@kyc/webhook-receiver/testing';
import type { APIGatewayProxyHandler, APIGatewayProxyHandlerV2, LambdaFunctionURLHandler } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// handler.ts is loaded as Lambda loads it (environment first, then the module), with a real
// Redis as its shared store, and invoked with events of the shapes API Gateway and function
// URLs record: no AWS account needed, nothing of the handler replaced.
const AUTH_KEY = 'example-auth-key-7f3c9a1e5b2d4f60';
// The new and the old secret of a rotation, as KYC_SIGNING_SECRETS lists them, and one nobody holds.
const { new: NEW_SECRET, old: OLD_SECRET, forged: FORGED_SECRET } = EXAMPLE_SIGNING_SECRETS;
const shapes: readonly LambdaEventShape[] = ['api-gateway-v1', 'api-gateway-v2', 'function-url'];
const run = `${process.pid}-${Date.now()}`;

describe.skipIf(!(await redisAvailable()))('aws-lambda-receiver', () => {
  let handler: typeof import('./handler.js').handler;
  const decisions: RecordedDecision[] = [];
  beforeAll(async () => {
    vi.stubEnv('KYC_AUTH_KEY', AUTH_KEY);
    vi.stubEnv('REDIS_URL', REDIS_URL);
    vi.stubEnv('KYC_SIGNING_SECRETS', `${NEW_SECRET} ${OLD_SECRET}`);
    vi.spyOn(console, 'info').mockImplementation((line: string) => decisions.push(JSON.parse(line)));
    ({ handler } = await import('./handler.js'));
  });
  afterAll(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('fits the handler types of @types/aws-lambda for all three triggers', () => {
    const asV1: APIGatewayProxyHandler = handler;
    const asV2: APIGatewayProxyHandlerV2 = handler;
    const asUrl: LambdaFunctionURLHandler = handler;
    expect([asV1, asV2, asUrl]).toHaveLength(3);
  });

  describe.each(shapes)('%s events', (shape) => {
    const sessionId = `lambda-${shape}-${run}`;
    const invoke = async (request: Request, base64 = false) =>
      handler((await createLambdaEvent(request, { shape, base64 })) as never);
    /** A delivery as the service sends it: the key and a Standard Webhooks signature (the new secret's by default). */
    const signed = async (
      payload: unknown,
      { webhookId = `evt-${crypto.randomUUID()}`, secrets = [NEW_SECRET], ageSeconds = 0, authKey = AUTH_KEY } = {},
    ) => {
      const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
      const headers = secrets.length > 0 ? await signatureHeaders(body, { id: webhookId, secrets, ageSeconds }) : {};
      return createTestRequest({ payload: body, authKey, webhookId, headers });
    };
    const body = { ...structuredClone(samples.status), sessionId };

    it('acts on a valid delivery once (200), and not again on its duplicate (200)', async () => {
      const first = await invoke(await signed(body, { webhookId: sessionId }), true);
      expect(first).toMatchObject({ statusCode: 200, isBase64Encoded: false });
      const again = await invoke(await signed(body, { webhookId: sessionId }));
      expect(again.statusCode).toBe(200);
      expect(JSON.parse(again.body)).toMatchObject({ duplicate: true });
      expect(decisions.filter((d) => d.sessionId === sessionId)).toEqual([
        { sessionId, action: 'activate-account', reason: expect.any(String) },
      ]);
    });

    it('answers 401 to a wrong key and 400 to a body that is not JSON, acting on neither', async () => {
      const other = { ...body, sessionId: `${sessionId}-refused` };
      const wrong = await invoke(await signed(other, { authKey: 'not-the-key-but-long-enough' }));
      expect(wrong.statusCode).toBe(401);
      expect(wrong.headers['www-authenticate']).toMatch(/^Bearer/);
      expect((await invoke(await signed('{"sessionId": '))).statusCode).toBe(400);
      expect(decisions.filter((d) => d.sessionId === other.sessionId)).toEqual([]);
    });

    it('verifies signatures from KYC_SIGNING_SECRETS: either secret of a rotation; a forged, stale or missing one gets 401', async () => {
      const event = (suffix: string) => ({ ...body, sessionId: `${sessionId}-${suffix}` });
      // During an overlap the service sends both signatures in one header; after it, only the new one.
      expect((await invoke(await signed(event('both'), { secrets: [NEW_SECRET, OLD_SECRET] }))).statusCode).toBe(200);
      expect((await invoke(await signed(event('old'), { secrets: [OLD_SECRET] }))).statusCode).toBe(200);
      expect((await invoke(await signed(event('forged'), { secrets: [FORGED_SECRET] }))).statusCode).toBe(401);
      expect((await invoke(await signed(event('stale'), { ageSeconds: 600 }))).statusCode).toBe(401);
      expect((await invoke(await signed(event('unsigned'), { secrets: [] }))).statusCode).toBe(401);
      const acted = (suffix: string) => decisions.filter((d) => d.sessionId === `${sessionId}-${suffix}`).length;
      expect(['both', 'old', 'forged', 'stale', 'unsigned'].map(acted)).toEqual([1, 1, 0, 0, 0]);
    });
  });
});
