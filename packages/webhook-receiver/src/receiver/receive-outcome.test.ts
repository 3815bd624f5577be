import { HEADERS, sampleStatusWebhook } from '@kyc/contracts';
import { describe, expect, it } from 'vitest';
import { requestInit } from '../../test/support/fetch-send.js';
import { AUTH_KEY, authorized, deferred } from '../../test/support/receiver-table.js';
import {
  createWebhookReceiver,
  type IdempotencyStore,
  memoryIdempotencyStore,
  type ReceiveOutcome,
  type WebhookHandler,
} from '../index.js';

const send = (receiver: ReturnType<typeof createWebhookReceiver>, init: RequestInit) =>
  receiver.receive({
    method: init.method ?? 'GET',
    header: (name) => new Headers(init.headers).get(name),
    readBody: async () => new TextEncoder().encode(typeof init.body === 'string' ? init.body : ''),
  });

const receiverWith = (onEvent: WebhookHandler = () => undefined, extra: Record<string, unknown> = {}) =>
  createWebhookReceiver({ authKeys: AUTH_KEY, onEvent, logger: {}, ...extra });

describe('every answer names how the request ended', () => {
  it.each<[string, RequestInit, ReceiveOutcome, number]>([
    ['a GET', { method: 'GET' }, 'invalid', 405],
    ['no Authorization', { ...requestInit(authorized(sampleStatusWebhook)), headers: {} }, 'unauthorized', 401],
    [
      'a wrong key',
      requestInit({ ...authorized(sampleStatusWebhook), headers: { authorization: 'Bearer not-the-key-but-long' } }),
      'unauthorized',
      401,
    ],
    ['a body that is not JSON', requestInit(authorized('{"sessionId": ')), 'invalid', 400],
    [
      'a declared length over the limit',
      requestInit(authorized(sampleStatusWebhook, { 'content-length': String(2 * 1024 * 1024) })),
      'too_large',
      413,
    ],
  ])('%s → %s', async (_name, init, outcome, status) => {
    const answer = await send(receiverWith(), init);
    expect({ outcome: answer.outcome, status: answer.status }).toEqual({ outcome, status });
  });

  it('processed, then duplicate, for the same event', async () => {
    const receiver = receiverWith();
    const init = requestInit(authorized(sampleStatusWebhook, { [HEADERS.webhookId]: 'evt_outcome_1' }));
    expect((await send(receiver, init)).outcome).toBe('processed');
    expect((await send(receiver, init)).outcome).toBe('duplicate');
  });

  it('in_progress while another delivery of the event runs its handler', async () => {
    const gate = deferred();
    const receiver = receiverWith(() => gate.promise);
    const init = requestInit(authorized(sampleStatusWebhook));
    const first = send(receiver, init);
    expect((await send(receiver, init)).outcome).toBe('in_progress');
    gate.resolve();
    expect((await first).outcome).toBe('processed');
  });

  it('handler_error when the handler throws, handler_timeout when it outlives handlerTimeoutMs', async () => {
    const failing = receiverWith(() => {
      throw new Error('boom');
    });
    expect((await send(failing, requestInit(authorized(sampleStatusWebhook)))).outcome).toBe('handler_error');
    const slow = receiverWith(() => new Promise(() => {}), { handlerTimeoutMs: 20 });
    const answer = await send(slow, requestInit(authorized(sampleStatusWebhook)));
    expect({ outcome: answer.outcome, status: answer.status }).toEqual({ outcome: 'handler_timeout', status: 503 });
  });

  it('store_unavailable when the claim cannot be recorded', async () => {
    const memory = memoryIdempotencyStore();
    const down: IdempotencyStore = { ...memory, claim: () => Promise.reject(new Error('connection refused')) };
    const answer = await send(
      receiverWith(undefined, { idempotencyStore: down }),
      requestInit(authorized(sampleStatusWebhook)),
    );
    expect({ outcome: answer.outcome, status: answer.status }).toEqual({ outcome: 'store_unavailable', status: 503 });
  });

  it('misconfigured when a framework consumed the body first', async () => {
    const receiver = receiverWith();
    const request = new Request('http://r.test/', requestInit(authorized(sampleStatusWebhook)));
    await request.text();
    const answer = await receiver.receive({
      method: 'POST',
      header: (name) => request.headers.get(name),
      readBody: async () => new Uint8Array(await request.arrayBuffer()),
    });
    expect({ outcome: answer.outcome, status: answer.status }).toEqual({ outcome: 'misconfigured', status: 500 });
  });
});
