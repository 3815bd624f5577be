import { HEADERS, sampleStatusWebhook, sampleV1Webhook } from '@kyc/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createWebhookReceiver } from '../index.js';

const KEY = 'kyc_prop_Zx81Lq0Wc6Tn3Ve9';

const headerValue = fc.oneof(
  fc.string({ unit: 'grapheme-ascii', maxLength: 40 }),
  fc.constant(`Bearer ${KEY}`),
  fc.constant(`bearer ${KEY}`),
  fc.constant(`Bearer ${KEY.slice(0, -1)}`),
  fc.string({ maxLength: 40 }).map((token) => `Bearer ${token}`),
);
const body = fc.oneof(
  fc.uint8Array({ maxLength: 600 }),
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.constantFrom(JSON.stringify(sampleStatusWebhook), JSON.stringify(sampleV1Webhook)),
  fc
    .record(
      { sessionId: fc.jsonValue(), status: fc.jsonValue(), id: fc.jsonValue(), endedAt: fc.jsonValue() },
      { requiredKeys: [] },
    )
    .map((value) => JSON.stringify(value)),
);
const method = fc.constantFrom('POST', 'post', 'PUT', 'GET', 'DELETE', 'PATCH');
const extraHeaders = fc.dictionary(
  fc.constantFrom(HEADERS.webhookId, HEADERS.contentType, 'x-anything', 'content-length'),
  fc.string({ unit: 'grapheme-ascii', maxLength: 30 }),
);

describe('handle (property)', () => {
  it('never throws, answers 500 only when the handler failed, and never runs the handler without the key', async () => {
    let totalRuns = 0;
    await fc.assert(
      fc.asyncProperty(
        method,
        fc.option(headerValue, { nil: undefined }),
        body,
        extraHeaders,
        fc.boolean(),
        async (verb, authorization, payload, extra, handlerFails) => {
          let runs = 0;
          const receiver = createWebhookReceiver({
            authKeys: KEY,
            logger: {},
            onEvent: () => {
              runs++;
              if (handlerFails) throw new Error('handler failed');
            },
          });
          const headers = new Headers();
          for (const [name, value] of Object.entries(extra)) {
            if (name !== 'content-length') headers.set(name, value);
          }
          if (authorization !== undefined) headers.set(HEADERS.authorization, authorization);
          const init: RequestInit = { method: verb, headers };
          if (verb !== 'GET') init.body = payload as BodyInit;
          const response = await receiver.handle(new Request('http://r.test/', init));
          if (runs > 0) expect([`Bearer ${KEY}`, `bearer ${KEY}`]).toContain(authorization);
          totalRuns += runs;
          if (response.status === 500) expect(handlerFails && runs === 1).toBe(true);
          expect([200, 400, 401, 405, 409, 413, 500, 503]).toContain(response.status);
          const text = await response.text();
          expect(text).not.toContain(KEY.slice(4, 12));
        },
      ),
      { numRuns: 300 },
    );
    // The generators do reach the handler: the property is not vacuous.
    expect(totalRuns).toBeGreaterThan(0);
  });
});
