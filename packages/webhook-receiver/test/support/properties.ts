import { HEADERS, sampleStatusWebhook, sampleV1Webhook } from '@kyc/contracts';
import fc from 'fast-check';
import { expect } from 'vitest';
import { createWebhookReceiver, type WebhookReceiver } from '../../src/index.js';

// Generators and checks shared by the property tests of handle (in process) and of toNodeHandler (on the wire).

export const KEY = 'kyc_prop_Zx81Lq0Wc6Tn3Ve9';
const VALID = [`Bearer ${KEY}`, `bearer ${KEY}`, `BEARER  ${KEY} `];

const headerValue = fc.oneof(
  fc.string({ unit: 'grapheme-ascii', maxLength: 40 }),
  fc.constantFrom(...VALID),
  fc.constant(`Bearer ${KEY.slice(0, -1)}`),
  fc.constant(`Basic ${KEY}`),
  fc.string({ unit: 'grapheme-ascii', maxLength: 40 }).map((token) => `Bearer ${token}`),
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
// Any header name (known ones weighted in), any printable value.
const extraHeaders = fc.dictionary(
  fc.oneof(
    fc.constantFrom(HEADERS.webhookId, HEADERS.contentType, HEADERS.webhookSignature, HEADERS.webhookTimestamp),
    fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
  ),
  fc.string({ unit: 'grapheme-ascii', maxLength: 30 }).map((value) => value.trim()),
  { maxKeys: 6 },
);

export interface Trial {
  readonly verb: string;
  readonly authorization: string | undefined;
  readonly payload: Uint8Array | string;
  readonly extra: Readonly<Record<string, string>>;
  readonly handlerFails: boolean;
}
export const trial = fc.record({
  verb: method,
  authorization: fc.option(headerValue, { nil: undefined }),
  payload: body,
  extra: extraHeaders,
  handlerFails: fc.boolean(),
});

// Valid deliveries of both shapes, given to fast-check as examples so every run reaches the
// handler: random trials alone hit a valid, first-seen delivery only a few times in a hundred.
export const handledTrials: readonly [Trial][] = [sampleStatusWebhook, sampleV1Webhook].map((sample) => [
  { verb: 'POST', authorization: VALID[0], payload: JSON.stringify(sample), extra: {}, handlerFails: false },
]);

const FRAMING = [
  'content-length',
  'transfer-encoding',
  'host',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
  'authorization',
];

export function headersOf({ authorization, extra }: Trial): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(extra)) {
    // Framing headers are the HTTP client's to set (fetch refuses expect, upgrade, keep-alive, connection);
    // authorization comes from the trial itself.
    if (!FRAMING.includes(name)) {
      headers.set(name, value);
    }
  }
  if (authorization !== undefined) headers.set(HEADERS.authorization, authorization);
  return headers;
}

/** One receiver for the whole property (so duplicates meet the store), and what its handler did. */
export function propertyReceiver() {
  const state = { runs: 0, fail: false };
  const receiver: WebhookReceiver = createWebhookReceiver({
    authKeys: KEY,
    logger: {},
    onEvent: async () => {
      state.runs++;
      await Promise.resolve();
      if (state.fail) throw new Error('handler failed');
    },
  });
  return { receiver, state };
}

/** The claims of the issue, checked for one request and its answer. */
export function checkAnswer(input: Trial, status: number, text: string, runs: number): void {
  if (runs > 0) expect(VALID).toContain(input.authorization);
  expect(runs).toBeLessThanOrEqual(1);
  if (status === 500) expect(input.handlerFails && runs === 1).toBe(true);
  expect([200, 400, 401, 405, 409, 413, 500, 503]).toContain(status);
  const answer = JSON.parse(text) as { received?: boolean; error?: { code?: string } };
  expect(answer.received === true || typeof answer.error?.code === 'string').toBe(true);
  expect(text).not.toContain(KEY.slice(4, 12));
}
