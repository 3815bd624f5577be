import { HEADERS, sampleStatusWebhook } from '@kyc/contracts';
import { describe, expect, it } from 'vitest';
import { requestInit } from '../../test/support/fetch-send.js';
import { AUTH_KEY, authorized } from '../../test/support/receiver-table.js';
import { createWebhookReceiver, type WebhookContext } from '../index.js';

const request = (extra: Record<string, string> = {}) =>
  new Request('http://r.test/', requestInit(authorized(sampleStatusWebhook, extra)));

describe('the context handed to onEvent', () => {
  it('carries the ids, reads headers even when destructured, and leaves the signal alone when the handler ends in time', async () => {
    let seen: { key: string; id: string | undefined; agent: string | undefined; aborted: boolean } | undefined;
    const receiver = createWebhookReceiver({
      authKeys: AUTH_KEY,
      logger: {},
      onEvent: (_event, context: WebhookContext) => {
        const { header, signal } = context;
        seen = {
          key: context.idempotencyKey,
          id: context.webhookId,
          agent: header('X-Test-Agent'),
          aborted: signal.aborted,
        };
      },
    });
    const response = await receiver.handle(request({ [HEADERS.webhookId]: 'evt_ctx_1', 'x-test-agent': 'bench' }));
    expect(response.status).toBe(200);
    expect(seen).toEqual({ key: 'id:evt_ctx_1', id: 'evt_ctx_1', agent: 'bench', aborted: false });
  });

  it('aborts the signal when the receiver answers 503 while the handler still runs', async () => {
    let signal: AbortSignal | undefined;
    let finished!: () => void;
    const handlerEnded = new Promise<void>((resolve) => {
      finished = resolve;
    });
    const receiver = createWebhookReceiver({
      authKeys: AUTH_KEY,
      logger: {},
      handlerTimeoutMs: 50,
      onEvent: async (_event, context) => {
        signal = context.signal;
        await new Promise((resolve) => signal?.addEventListener('abort', resolve, { once: true }));
        finished();
      },
    });
    const response = await receiver.handle(request({ [HEADERS.webhookId]: 'evt_ctx_2' }));
    expect(response.status).toBe(503);
    expect(signal?.aborted).toBe(true);
    expect(String(signal?.reason)).toContain('503');
    await handlerEnded;
  });
});
