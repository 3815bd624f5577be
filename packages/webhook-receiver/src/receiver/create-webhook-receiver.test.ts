import { HEADERS, sampleStatusWebhook } from '@kyc/contracts';
import { describe, expect, it, vi } from 'vitest';
import { requestInit } from '../../test/support/fetch-send.js';
import { AUTH_KEY, authorized, deferred, receiverTableSuite } from '../../test/support/receiver-table.js';
import { createWebhookReceiver, type IdempotencyStore, memoryIdempotencyStore, WebhookError } from '../index.js';

receiverTableSuite('handle(Request)', async (receiver) => ({
  async send(delivery) {
    const response = await receiver.handle(new Request('http://receiver.test/webhooks/kyc', requestInit(delivery)));
    return { status: response.status, headers: response.headers, text: await response.text() };
  },
  async close() {},
}));

describe('createWebhookReceiver options', () => {
  const onEvent = () => undefined;

  it('requires authKeys unless allowUnauthenticated is explicitly true', () => {
    expect(() => createWebhookReceiver({ onEvent } as never)).toThrow(/authKeys is required/);
    const receiver = createWebhookReceiver({ allowUnauthenticated: true, onEvent });
    expect(receiver.handle).toBeTypeOf('function');
  });

  it('refuses a key shorter than 16 characters without echoing it', () => {
    const short = 'tooShortKey123';
    let caught: unknown;
    try {
      createWebhookReceiver({ authKeys: [AUTH_KEY, short], onEvent });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(WebhookError);
    expect((caught as WebhookError).code).toBe('invalid_option');
    expect((caught as WebhookError).message).toContain('authKeys[1]');
    expect((caught as WebhookError).message).not.toContain(short);
    expect(JSON.stringify(caught)).not.toContain(short);
  });

  it.each([
    [{ authKeys: [] }, /at least one key/],
    [{ authKeys: [42] }, /must be a string/],
    [{ authKeys: ` ${AUTH_KEY}` }, /whitespace/],
    [{ authKeys: AUTH_KEY, maxBodyBytes: 0 }, /maxBodyBytes/],
    [{ authKeys: AUTH_KEY, handlerTimeoutMs: -1 }, /handlerTimeoutMs/],
    [{ authKeys: AUTH_KEY, onEvent: 'nope' }, /onEvent/],
    [{ authKeys: AUTH_KEY, handlerTimeoutMs: 2 ** 31 }, /handlerTimeoutMs must be a positive integer of at most/],
    [{ authKeys: AUTH_KEY, idempotencyLeaseMs: 1.5 }, /idempotencyLeaseMs/],
    [{ authKeys: AUTH_KEY, idempotencyStore: { claim: () => undefined } }, /idempotencyStore must implement/],
    [{ authKeys: AUTH_KEY, idempotencyStore: new Map() }, /idempotencyStore must implement/],
  ])('refuses bad options %#', (options, message) => {
    expect(() => createWebhookReceiver({ onEvent, ...options } as never)).toThrow(message);
  });

  it('accepts unauthenticated v1 deliveries only with the opt-out, deduplicating them all the same', async () => {
    const seen: string[] = [];
    const receiver = createWebhookReceiver({
      allowUnauthenticated: true,
      onEvent: (event) => void seen.push(event.shape),
    });
    const body = JSON.stringify(sampleStatusWebhook);
    const send = () => receiver.handle(new Request('http://r.test/', { method: 'POST', body }));
    expect((await send()).status).toBe(200);
    expect((await send()).status).toBe(200);
    expect(seen).toEqual(['status']);
  });

  it('passes the Webhook-Id header to the handler as the idempotency key', async () => {
    const keys: string[] = [];
    const receiver = createWebhookReceiver({
      authKeys: AUTH_KEY,
      onEvent: (_event, context) => void keys.push(context.idempotencyKey),
    });
    const send = (id: string) =>
      receiver.handle(
        new Request('http://r.test/', requestInit(authorized(sampleStatusWebhook, { [HEADERS.webhookId]: id }))),
      );
    expect((await send('evt_1')).status).toBe(200);
    expect((await send('evt_1')).status).toBe(200);
    expect((await send('evt_2')).status).toBe(200);
    expect(keys).toEqual(['id:evt_1', 'id:evt_2']);
  });

  it('answers 500 (not a hang) when the request body was already read', async () => {
    const receiver = createWebhookReceiver({ authKeys: AUTH_KEY, onEvent });
    const request = new Request('http://r.test/', requestInit(authorized(sampleStatusWebhook)));
    await request.text();
    const response = await receiver.handle(request);
    expect(response.status).toBe(500);
    expect((await response.json()).error.code).toBe('receiver_misconfigured');
  });

  it('answers 503 + Retry-After when the idempotency store is down, without running the handler', async () => {
    let runs = 0;
    const broken = {
      claim: () => Promise.reject(new Error('connection refused')),
      complete: () => Promise.resolve(false),
      release: () => Promise.resolve(false),
    };
    const receiver = createWebhookReceiver({
      authKeys: AUTH_KEY,
      idempotencyStore: broken,
      onEvent: () => void runs++,
    });
    const response = await receiver.handle(new Request('http://r.test/', requestInit(authorized(sampleStatusWebhook))));
    expect(response.status).toBe(503);
    expect(response.headers.get(HEADERS.retryAfter)).not.toBeNull();
    expect(runs).toBe(0);
  });

  it('answers 200 once the handler ran, whatever the store answers its completion with: a thenable, a throw', async () => {
    const memory = memoryIdempotencyStore();
    // A thenable as the specification allows: its `then` returns nothing.
    const thenable = (value: boolean) => ({
      // biome-ignore lint/suspicious/noThenProperty: a thenable that is not a Promise is the case under test.
      then(resolve: (value: boolean) => void): void {
        resolve(value);
      },
    });
    const stores: IdempotencyStore[] = [
      { ...memory, complete: () => thenable(true) as unknown as Promise<boolean> },
      {
        ...memory,
        complete: () => {
          throw new Error('store gone');
        },
      },
    ];
    for (const [index, store] of stores.entries()) {
      let runs = 0;
      const receiver = createWebhookReceiver({
        authKeys: AUTH_KEY,
        idempotencyStore: store,
        logger: {},
        onEvent: () => void runs++,
      });
      const request = new Request(
        'http://r.test/',
        requestInit(authorized(sampleStatusWebhook, { [HEADERS.webhookId]: `evt_complete_${index}` })),
      );
      expect((await receiver.handle(request)).status).toBe(200);
      expect(runs).toBe(1);
    }
  });

  describe('a handler that outlives its claim lease', () => {
    // Renewed every 400 ms: the 409 survives an event-loop stall of up to 800 ms on a loaded machine.
    const LEASE_MS = 1200;
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

    /** One slow delivery (503), a redelivery after two leases, then the first handler ends. */
    async function slowThenRedeliver(store: IdempotencyStore) {
      const gate = deferred();
      let runs = 0;
      const receiver = createWebhookReceiver({
        authKeys: AUTH_KEY,
        idempotencyStore: store,
        idempotencyLeaseMs: LEASE_MS,
        handlerTimeoutMs: 100,
        logger: {},
        onEvent: async () => {
          runs++;
          await gate.promise;
        },
      });
      const send = async () =>
        (await receiver.handle(new Request('http://r.test/', requestInit(authorized(sampleStatusWebhook))))).status;
      expect(await send()).toBe(503);
      await sleep(2 * LEASE_MS + 100);
      const redelivery = await send();
      gate.resolve();
      await expect.poll(send).toBe(200);
      return { redelivery, runs };
    }

    it('keeps renewing the lease: the redelivery gets 409 and the handler runs once', async () => {
      const memory = memoryIdempotencyStore();
      let renewals = 0;
      const store: IdempotencyStore = {
        claim: (key, options) => memory.claim(key, options),
        complete: (key, token, options) => memory.complete(key, token, options),
        release: (key, token) => memory.release(key, token),
        extend: (key, token, options) => {
          renewals++;
          return memory.extend?.(key, token, options) ?? Promise.resolve(false);
        },
      };
      const { redelivery, runs } = await slowThenRedeliver(store);
      expect(redelivery).toBe(409);
      expect(runs).toBe(1);
      expect(renewals).toBeGreaterThanOrEqual(3);
    });

    it('without extend (a custom store) the lease ends and a redelivery runs the handler again', async () => {
      const memory = memoryIdempotencyStore();
      const { redelivery, runs } = await slowThenRedeliver({
        claim: (key, options) => memory.claim(key, options),
        complete: (key, token, options) => memory.complete(key, token, options),
        release: (key, token) => memory.release(key, token),
      });
      // The control for the test above: its 409 comes from the renewals, not from a long lease.
      expect(redelivery).toBe(503);
      expect(runs).toBe(2);
    });
  });

  describe('defaults', () => {
    const deliver = (receiver: ReturnType<typeof createWebhookReceiver>, body: unknown = sampleStatusWebhook) =>
      receiver.handle(new Request('http://r.test/', requestInit(authorized(body))));

    it('remembers a processed event for 7 days, then forgets it', async () => {
      let time = Date.UTC(2026, 10, 1);
      let runs = 0;
      const receiver = createWebhookReceiver({
        authKeys: AUTH_KEY,
        idempotencyStore: memoryIdempotencyStore({ now: () => time }),
        logger: {},
        onEvent: () => void runs++,
      });
      expect((await deliver(receiver)).status).toBe(200);
      time += 7 * 24 * 60 * 60 * 1000 - 60_000; // a manual redelivery just inside the window
      expect(await (await deliver(receiver)).json()).toEqual({ received: true, duplicate: true });
      time += 120_000;
      expect(await (await deliver(receiver)).json()).toEqual({ received: true });
      expect(runs).toBe(2);
    });

    it('accepts a body of exactly 1 MiB and answers 413 to one byte more', async () => {
      let runs = 0;
      const receiver = createWebhookReceiver({ authKeys: AUTH_KEY, logger: {}, onEvent: () => void runs++ });
      const padded = (bytes: number) => {
        const base = JSON.stringify({ ...sampleStatusWebhook, padding: '' });
        return `${base.slice(0, -2)}${'x'.repeat(bytes - new TextEncoder().encode(base).byteLength)}"}`;
      };
      const exact = padded(1024 * 1024);
      expect(new TextEncoder().encode(exact).byteLength).toBe(1024 * 1024);
      expect((await deliver(receiver, exact)).status).toBe(200);
      const over = padded(1024 * 1024 + 1);
      expect((await deliver(receiver, over)).status).toBe(413);
      // The same without a declared length: counted while streaming.
      const stream = new Blob([over]).stream();
      const streamed = await receiver.handle(
        new Request('http://r.test/', { ...requestInit(authorized('')), body: stream, duplex: 'half' } as RequestInit),
      );
      expect(streamed.status).toBe(413);
      expect(runs).toBe(1);
    });

    it('answers 503 after 25 s of a running handler, not before', async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
      const started = deferred();
      const gate = deferred();
      try {
        const receiver = createWebhookReceiver({
          authKeys: AUTH_KEY,
          logger: {},
          onEvent: () => {
            started.resolve();
            return gate.promise;
          },
        });
        let answered: Response | undefined;
        const pending = deliver(receiver).then((response) => {
          answered = response;
        });
        await started.promise;
        await vi.advanceTimersByTimeAsync(24_999);
        expect(answered).toBeUndefined();
        await vi.advanceTimersByTimeAsync(1);
        await pending;
        expect(answered?.status).toBe(503);
        expect(answered?.headers.get(HEADERS.retryAfter)).toBe('60');
      } finally {
        gate.resolve();
        vi.useRealTimers();
      }
    });
  });
});
