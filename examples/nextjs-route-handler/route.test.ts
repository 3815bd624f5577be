import { sampleStatusWebhook, sampleV1Webhook } from '@kyc/contracts';
import { createTestRequest } from '@kyc/webhook-receiver/testing';
import { beforeAll, describe, expect, it } from 'vitest';

// Next.js calls the exported POST with a Fetch Request; so does this test.
const AUTH_KEY = 'nextjs-example-key-5d1f0c7e9a3b';
let POST: (request: Request) => Promise<Response>;
let decisions: readonly { sessionId: string; action: string }[];

beforeAll(async () => {
  process.env.KYC_AUTH_KEYS = `${AUTH_KEY},previous-key-during-rotation-01`;
  ({ POST } = await import('./app/api/kyc-webhook/route.js'));
  ({ decisions } = await import('./decisions.js'));
});

describe('app/api/kyc-webhook/route.ts', () => {
  it('acts on a status delivery once and answers duplicates 200', async () => {
    const payload = { ...structuredClone(sampleStatusWebhook), sessionId: 'next-1', status: 'REJECTED' };
    expect((await POST(createTestRequest({ payload, authKey: AUTH_KEY, webhookId: 'evt-next-1' }))).status).toBe(200);
    expect((await POST(createTestRequest({ payload, authKey: AUTH_KEY, webhookId: 'evt-next-1' }))).status).toBe(200);
    expect(decisions.filter((d) => d.sessionId === 'next-1').map((d) => d.action)).toEqual(['request-retry']);
  });

  it('accepts the previous key during a rotation', async () => {
    const payload = { ...structuredClone(sampleStatusWebhook), sessionId: 'next-2', status: 'ERROR' };
    const response = await POST(createTestRequest({ payload, authKey: 'previous-key-during-rotation-01' }));
    expect(response.status).toBe(200);
    expect(decisions.filter((d) => d.sessionId === 'next-2').map((d) => d.action)).toEqual(['allow-retry']);
  });

  it('rejects a wrong key with 401 and a v1 body without a key too', async () => {
    const wrong = await POST(createTestRequest({ payload: sampleStatusWebhook, authKey: 'wrong-key-but-sixteen' }));
    expect(wrong.status).toBe(401);
    expect((await POST(createTestRequest({ payload: sampleV1Webhook }))).status).toBe(401);
  });

  it('reads a v1 body sent with the key', async () => {
    const payload = { ...structuredClone(sampleV1Webhook) };
    expect((await POST(createTestRequest({ payload, authKey: AUTH_KEY }))).status).toBe(200);
    expect(decisions.filter((d) => d.sessionId === sampleV1Webhook.id).map((d) => d.action)).toEqual(['review-scores']);
  });
});
