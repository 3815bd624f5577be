import { HEADERS, sampleStatusWebhook, sampleV1Webhook } from '@kyc/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import { createWebhookReceiver, type WebhookReceiver, type WebhookReceiverOptions } from '../../src/index.js';
import { endlessChunkedUpload } from './endless-upload.js';

/** A strong-looking Auth Key used only by tests. */
export const AUTH_KEY = 'kyc_test_Q3v9ZrT1mW8xLp2N';
export const OTHER_KEY = 'kyc_test_B7hK0sYd4Fj6Uc1E';

/** One delivery as a test sends it. */
export interface TestDelivery {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** A string, bytes, or a stream (sent chunked, without Content-Length). */
  readonly body?: string | Uint8Array | ReadableStream<Uint8Array>;
  readonly path?: string;
}

/** What came back. */
export interface TestReply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** A receiver mounted somewhere (directly, or inside a framework on a loopback server). */
export interface Mounted {
  send(delivery: TestDelivery): Promise<TestReply>;
  close(): Promise<void>;
  /** The loopback server, when there is one: its URL and the bytes it read from its sockets. */
  readonly wire?: { readonly baseUrl: string; bytesRead(): number };
}

export type Mount = (receiver: WebhookReceiver) => Promise<Mounted>;

export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

export function authorized(body: unknown, extra: Record<string, string> = {}): TestDelivery {
  return {
    headers: {
      [HEADERS.contentType]: 'application/json',
      [HEADERS.authorization]: `Bearer ${AUTH_KEY}`,
      ...extra,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  };
}

/** A stream that yields `chunkBytes` of JSON-ish filler forever and counts what was pulled. */
export function endlessBody(chunkBytes = 64 * 1024): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  const chunk = new Uint8Array(chunkBytes).fill(0x20);
  const limit = 256 * 1024 * 1024; // bounded: stops by itself even if nobody cancels.
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= limit) return controller.close();
      pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return { stream, pulled: () => pulled };
}

/**
 * Every row of DESIGN "Receiver behaviour", run against one way of mounting the receiver. The
 * same suite runs through `handle` and through each framework adapter.
 */
export function receiverTableSuite(name: string, mount: Mount): void {
  describe(`${name}: DESIGN receiver table`, () => {
    let mounted: Mounted | undefined;
    afterEach(async () => {
      await mounted?.close();
      mounted = undefined;
    });

    async function start(overrides: Partial<WebhookReceiverOptions> = {}, onEvent?: () => unknown) {
      const calls: string[] = [];
      const receiver = createWebhookReceiver({
        authKeys: [AUTH_KEY, OTHER_KEY],
        handlerTimeoutMs: 2_000,
        logger: {},
        onEvent: async (event) => {
          calls.push(event.sessionId);
          await onEvent?.();
        },
        ...overrides,
      } as WebhookReceiverOptions);
      mounted = await mount(receiver);
      return { calls, send: mounted.send, wire: mounted.wire };
    }

    it('valid key, new session → 200 and the handler runs once', async () => {
      const { calls, send } = await start();
      const reply = await send(authorized(sampleStatusWebhook));
      expect(reply.status).toBe(200);
      expect(JSON.parse(reply.text)).toEqual({ received: true });
      expect(calls).toEqual([sampleStatusWebhook.sessionId]);
    });

    it('valid key, already processed → 200 and the handler does not run again', async () => {
      const { calls, send } = await start();
      expect((await send(authorized(sampleV1Webhook))).status).toBe(200);
      const again = await send(authorized(sampleV1Webhook));
      expect(again.status).toBe(200);
      expect(JSON.parse(again.text)).toEqual({ received: true, duplicate: true });
      expect(calls).toHaveLength(1);
    });

    it('a rotated (second) key is accepted too', async () => {
      const { calls, send } = await start();
      const reply = await send({
        ...authorized(sampleStatusWebhook),
        headers: { [HEADERS.authorization]: `bearer   ${OTHER_KEY}` },
      });
      expect(reply.status).toBe(200);
      expect(calls).toHaveLength(1);
    });

    it('same event still in progress → 409 + Retry-After, then 200 once it completes', async () => {
      const gate = deferred();
      const { calls, send } = await start({}, () => gate.promise);
      const first = send(authorized(sampleStatusWebhook));
      await expect.poll(() => calls.length).toBe(1);
      const second = await send(authorized(sampleStatusWebhook));
      expect(second.status).toBe(409);
      expect(Number(second.headers.get(HEADERS.retryAfter))).toBeGreaterThanOrEqual(1);
      gate.resolve();
      expect((await first).status).toBe(200);
      expect((await send(authorized(sampleStatusWebhook))).status).toBe(200);
      expect(calls).toHaveLength(1);
    });

    it('handler throws → 500 and the claim is released so a retry runs it', async () => {
      let fail = true;
      const { calls, send } = await start({}, () => {
        if (fail) throw new Error('database down');
      });
      const failed = await send(authorized(sampleStatusWebhook));
      expect(failed.status).toBe(500);
      expect(failed.text).not.toContain('database down');
      fail = false;
      expect((await send(authorized(sampleStatusWebhook))).status).toBe(200);
      expect(calls).toHaveLength(2);
    });

    it.each([
      ['missing', undefined],
      ['wrong', `Bearer ${'w'.repeat(AUTH_KEY.length)}`],
      ['malformed (no scheme)', AUTH_KEY],
      ['malformed (Basic)', `Basic ${AUTH_KEY}`],
      ['empty', ''],
    ])('%s Authorization → 401 + WWW-Authenticate: Bearer, handler not run', async (_label, value) => {
      const { calls, send } = await start();
      const headers: Record<string, string> = { [HEADERS.contentType]: 'application/json' };
      if (value !== undefined) headers[HEADERS.authorization] = value;
      const reply = await send({ headers, body: JSON.stringify(sampleStatusWebhook) });
      expect(reply.status).toBe(401);
      expect(reply.headers.get(HEADERS.wwwAuthenticate)).toBe('Bearer');
      expect(reply.text).not.toContain(AUTH_KEY);
      expect(calls).toHaveLength(0);
    });

    it.each([
      ['not JSON', '{"sessionId":'],
      ['no session id', JSON.stringify({ status: 'APPROVED' })],
      ['not an object', '[1,2]'],
      ['empty', ''],
    ])('body %s → 400, handler not run', async (_label, body) => {
      const { calls, send } = await start();
      const reply = await send(authorized(body));
      expect(reply.status).toBe(400);
      expect(JSON.parse(reply.text).error.code).toBe('invalid_body');
      expect(calls).toHaveLength(0);
    });

    it('strict: a body with issues → 400', async () => {
      const { calls, send } = await start({ strict: true });
      expect((await send(authorized({ sessionId: 'sess_1', status: 'APPROVED' }))).status).toBe(400);
      expect((await send(authorized(sampleStatusWebhook))).status).toBe(200);
      expect(calls).toHaveLength(1);
    });

    it('body over the limit (declared length) → 413, handler not run', async () => {
      const { calls, send } = await start({ maxBodyBytes: 1024 });
      const big = JSON.stringify({ ...sampleStatusWebhook, padding: 'x'.repeat(4096) });
      const reply = await send(authorized(big));
      expect(reply.status).toBe(413);
      expect(calls).toHaveLength(0);
    });

    it('body over the limit (streamed, no length) → 413 without reading the rest', async () => {
      const limit = 64 * 1024;
      const { calls, send, wire } = await start({ maxBodyBytes: limit });
      if (wire === undefined) {
        // In process: the receiver pulls the request stream itself and cancels it at the limit.
        const { stream, pulled } = endlessBody(16 * 1024);
        const reply = await send({ ...authorized(''), body: stream });
        expect(reply.status).toBe(413);
        expect(pulled()).toBeLessThanOrEqual(limit + 3 * 16 * 1024);
      } else {
        // On the wire: the server answers, stops reading its socket near the limit, and closes the
        // connection (the upload resolves only on close; a server still reading would take it all).
        const { response, pushed } = await endlessChunkedUpload(wire.baseUrl, `Bearer ${AUTH_KEY}`);
        const read = wire.bytesRead();
        expect(response).toMatch(/^HTTP\/1\.1 413 /);
        expect(read, `server read ${read} B while the client pushed ${pushed} B`).toBeLessThan(limit + 1024 * 1024);
      }
      expect(calls).toHaveLength(0);
    });

    it('not POST → 405 with Allow: POST, handler not run', async () => {
      const { calls, send } = await start();
      const reply = await send({ method: 'GET', headers: { [HEADERS.authorization]: `Bearer ${AUTH_KEY}` } });
      expect(reply.status).toBe(405);
      expect(reply.headers.get('allow')).toBe('POST');
      expect(calls).toHaveLength(0);
    });

    it('handler still running after handlerTimeoutMs → 503 + Retry-After; the claim stays until it ends', async () => {
      const gate = deferred();
      const { calls, send } = await start({ handlerTimeoutMs: 150 }, () => gate.promise);
      const slow = await send(authorized(sampleStatusWebhook));
      expect(slow.status).toBe(503);
      expect(Number(slow.headers.get(HEADERS.retryAfter))).toBeGreaterThanOrEqual(1);
      const meanwhile = await send(authorized(sampleStatusWebhook));
      expect(meanwhile.status).toBe(409);
      gate.resolve();
      await expect
        .poll(async () => JSON.parse((await send(authorized(sampleStatusWebhook))).text))
        .toEqual({ received: true, duplicate: true });
      expect(calls).toHaveLength(1);
    });

    it('50 concurrent identical deliveries → the handler runs once; the 49 others get 409 + Retry-After', async () => {
      // The one run holds on until the 49 others were answered: each of them met the claim in progress.
      const othersAnswered = deferred();
      const { calls, send } = await start({ handlerTimeoutMs: 15_000 }, () => othersAnswered.promise);
      let answered = 0;
      const replies = await Promise.all(
        Array.from({ length: 50 }, async () => {
          const reply = await send(authorized(sampleStatusWebhook));
          if (++answered === 49) othersAnswered.resolve();
          return reply;
        }),
      );
      expect(calls).toHaveLength(1);
      expect(replies.map((reply) => reply.status).sort()).toEqual([200, ...Array.from({ length: 49 }, () => 409)]);
      for (const reply of replies.filter((each) => each.status === 409)) {
        expect(Number(reply.headers.get(HEADERS.retryAfter))).toBeGreaterThanOrEqual(1);
      }
      expect(JSON.parse((await send(authorized(sampleStatusWebhook))).text)).toEqual({
        received: true,
        duplicate: true,
      });
    });
  });
}
