import { HEADERS } from '@kyc/contracts';
import { describe, expect, it } from 'vitest';
import { createWebhookReceiver, type KycWebhookEvent } from '../index.js';
import { createTestRequest } from './create-test-request.js';
import { samples } from './samples.js';

const authKey = 'kyc_test_helper_Vn4Rt8Qw2Zp6';

describe('createTestRequest + samples', () => {
  it('builds deliveries that a receiver accepts, for every sample shape', async () => {
    const events: KycWebhookEvent[] = [];
    const receiver = createWebhookReceiver({
      authKeys: authKey,
      logger: {},
      onEvent: (event) => void events.push(event),
    });
    for (const [name, payload] of Object.entries(samples)) {
      const response = await receiver.handle(createTestRequest({ payload, authKey, webhookId: `evt_${name}` }));
      expect(response.status, name).toBe(200);
    }
    expect(events.map((event) => event.shape)).toEqual(['v1', 'status', 'both', 'status', 'status']);
    expect(new Set(events.map((event) => event.sessionId))).toEqual(new Set([samples.v1.id]));
    expect(events.map((event) => event.webhookId)).toEqual(Object.keys(samples).map((name) => `evt_${name}`));
  });

  it('sends the service headers, strings as they are, and lets headers be overridden', async () => {
    const request = createTestRequest({ payload: '{"id":"x"', authKey, headers: { [HEADERS.userAgent]: 'custom' } });
    expect(request.method).toBe('POST');
    expect(request.headers.get(HEADERS.authorization)).toBe(`Bearer ${authKey}`);
    expect(request.headers.get(HEADERS.userAgent)).toBe('custom');
    expect(await request.text()).toBe('{"id":"x"');
    const unauthenticated = createTestRequest({ payload: samples.v1 });
    expect(unauthenticated.headers.get(HEADERS.authorization)).toBeNull();
    const receiver = createWebhookReceiver({ authKeys: authKey, logger: {}, onEvent: () => undefined });
    expect((await receiver.handle(unauthenticated)).status).toBe(401);
    expect((await receiver.handle(createTestRequest({ payload: samples.v1, authKey, method: 'GET' }))).status).toBe(
      405,
    );
  });
});
