import { createHash } from 'node:crypto';
import { HEADERS, sampleStatusWebhook } from '@kyc/contracts';
import { describe, expect, it } from 'vitest';
import type { AuditEntry, AuditSink } from '../../src/audit.js';
import { auditTrail, verifyAuditLog } from '../../src/audit.js';
import {
  createWebhookReceiver,
  type IdempotencyStore,
  type ReceiveOutcome,
  WebhookError,
  type WebhookReceiver,
} from '../../src/index.js';
import { createTestRequest } from '../../src/testing.js';
import { AUTH_KEY, deferred, OTHER_KEY } from './receiver-table.js';

/** A fresh, empty audit log behind a sink, and a way to read it back in order. */
export interface AuditLogUnderTest {
  readonly sink: AuditSink;
  read(): Promise<AuditEntry[]>;
  close(): Promise<void>;
}

const MAX_BODY = 4096;
const withSession = (sessionId: string) => ({ ...structuredClone(sampleStatusWebhook), sessionId });
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const failingStore: IdempotencyStore = {
  claim: () => Promise.reject(new Error('connection refused')),
  complete: () => Promise.resolve(true),
  release: () => Promise.resolve(true),
};

/** One receiver per audit log, two keys (old, current) with labels, handlers chosen by session id. */
function receiversFor(sink: AuditSink) {
  const hold = deferred();
  const slow = deferred();
  const common = {
    authKeys: [OTHER_KEY, AUTH_KEY],
    maxBodyBytes: MAX_BODY,
    logger: {},
    audit: auditTrail({ sink, authKeyLabels: ['2026-q3', '2026-q4'] }),
    onEvent: async (event: { sessionId: string }) => {
      if (event.sessionId === 'sess-throws') throw new Error('business rule failed');
      if (event.sessionId === 'sess-held') await hold.promise;
      if (event.sessionId === 'sess-slow') await slow.promise;
    },
  };
  return {
    receiver: createWebhookReceiver(common),
    broken: createWebhookReceiver({ ...common, idempotencyStore: failingStore }),
    impatient: createWebhookReceiver({ ...common, handlerTimeoutMs: 200 }),
    release: () => {
      hold.resolve();
      slow.resolve();
    },
  };
}

/** What each request of the script is expected to leave in the log. */
interface Expected {
  readonly outcome: ReceiveOutcome;
  readonly httpStatus: number;
  readonly sessionId: string | null;
  readonly body: string | null;
}

const post = (payload: unknown, extra: { authKey?: string; webhookId?: string; method?: string } = {}) =>
  createTestRequest({ payload, authKey: AUTH_KEY, ...extra });

/** Sends one request of every outcome, one after the other, and says what each should record. */
async function sendEveryOutcome(receivers: ReturnType<typeof receiversFor>, receiver: WebhookReceiver) {
  const expected: Expected[] = [];
  const send = async (
    request: Request,
    outcome: ReceiveOutcome,
    httpStatus: number,
    sessionId: string | null,
    body: string | null,
    via = receiver,
  ) => {
    const response = await via.handle(request);
    expect({ outcome, status: response.status }).toEqual({ outcome, status: httpStatus });
    expected.push({ outcome, httpStatus, sessionId, body });
  };
  const processed = JSON.stringify(withSession('sess-ok'));
  const first = createTestRequest({
    payload: processed,
    authKey: AUTH_KEY,
    webhookId: 'evt_ok',
    headers: { 'webhook-attempt': '1' },
  });
  await send(first, 'processed', 200, 'sess-ok', processed);
  await send(post(processed, { webhookId: 'evt_ok' }), 'duplicate', 200, 'sess-ok', processed);

  const held = JSON.stringify(withSession('sess-held'));
  const heldFirst = receiver.handle(post(held, { webhookId: 'evt_held' }));
  await new Promise((resolve) => setTimeout(resolve, 20));
  await send(post(held, { webhookId: 'evt_held' }), 'in_progress', 409, 'sess-held', held);

  await send(post(processed, { authKey: 'kyc_test_not_the_key_0000' }), 'unauthorized', 401, null, null);
  await send(post(processed, { method: 'GET' }), 'invalid', 405, null, null);
  await send(post('{"sessionId": '), 'invalid', 400, null, '{"sessionId": ');
  await send(post({ sessionId: 'sess-big', pad: 'x'.repeat(MAX_BODY) }), 'too_large', 413, null, null);
  const throws = JSON.stringify(withSession('sess-throws'));
  await send(post(throws), 'handler_error', 500, 'sess-throws', throws);
  const slow = JSON.stringify(withSession('sess-slow'));
  await send(post(slow), 'handler_timeout', 503, 'sess-slow', slow, receivers.impatient);
  const unstored = JSON.stringify(withSession('sess-unstored'));
  await send(post(unstored), 'store_unavailable', 503, 'sess-unstored', unstored, receivers.broken);

  // A framework that consumed the body before the receiver.
  const answer = await receiver.receive({
    method: 'POST',
    header: (name) => (name === HEADERS.authorization ? `Bearer ${AUTH_KEY}` : null),
    readBody: () => Promise.reject(new WebhookError('body_already_consumed', 'the body was read by a body parser')),
  });
  expect(answer.outcome).toBe('misconfigured');
  expected.push({ outcome: 'misconfigured', httpStatus: 500, sessionId: null, body: null });

  receivers.release();
  // The first delivery of the held event ends now, after the 409 was recorded.
  expect((await heldFirst).status).toBe(200);
  expected.push({ outcome: 'processed', httpStatus: 200, sessionId: 'sess-held', body: held });
  return expected;
}

/**
 * The suite every audit sink passes: one entry per request whatever the outcome, with the
 * fields the issue lists, a chain that verifies, no key anywhere, and a chain that stays whole
 * under concurrent requests.
 */
export function auditSinkConformance(name: string, open: () => Promise<AuditLogUnderTest>): void {
  describe(`${name}: the audit trail`, () => {
    it('records one entry per request, for every outcome, and the chain verifies', async () => {
      const log = await open();
      try {
        const receivers = receiversFor(log.sink);
        const expected = await sendEveryOutcome(receivers, receivers.receiver);
        const entries = await log.read();
        expect(entries.map((entry) => [entry.outcome, entry.httpStatus, entry.sessionId])).toEqual(
          expected.map((item) => [item.outcome, item.httpStatus, item.sessionId]),
        );
        entries.forEach((entry, index) => {
          const wanted = expected[index] as Expected;
          expect(entry.seq).toBe(index + 1);
          expect(entry.bodySha256).toBe(wanted.body === null ? entry.bodySha256 : sha256(wanted.body));
          if (wanted.body !== null) expect(entry.bodyLength).toBe(Buffer.byteLength(wanted.body));
          expect(entry.body).toBeUndefined();
          expect(Number.isNaN(Date.parse(entry.receivedAt))).toBe(false);
        });
        const processed = entries[0] as AuditEntry;
        expect(processed).toMatchObject({
          code: null,
          webhookId: 'evt_ok',
          webhookAttempt: '1',
          idempotencyKey: 'id:evt_ok',
          kycStatus: 'APPROVED',
          eventTimestamp: sampleStatusWebhook.timestamp,
          authKeyIndex: 1,
          authKeyLabel: '2026-q4',
          signatureVerified: null,
          signatureHeaders: { 'webhook-id': 'evt_ok', 'webhook-timestamp': null, 'webhook-signature': null },
        });
        expect(entries.find((entry) => entry.outcome === 'unauthorized')).toMatchObject({
          code: 'invalid_auth',
          authKeyIndex: null,
          authKeyLabel: null,
        });
        expect(entries.find((entry) => entry.outcome === 'handler_timeout')?.handlerMs).toBeGreaterThanOrEqual(150);

        const text = JSON.stringify(entries);
        for (const secret of [AUTH_KEY, OTHER_KEY, 'kyc_test_not_the_key_0000', 'Bearer'])
          expect(text).not.toContain(secret);
        expect(await verifyAuditLog(entries)).toMatchObject({ ok: true, count: expected.length });
      } finally {
        await log.close();
      }
    });

    it('keeps one valid chain under 60 concurrent requests', async () => {
      const log = await open();
      try {
        const { receiver } = receiversFor(log.sink);
        const statuses = await Promise.all(
          Array.from({ length: 60 }, (_, index) =>
            receiver.handle(post(withSession(`sess-c${index}`), { webhookId: `evt_c${index}` })).then((r) => r.status),
          ),
        );
        expect(statuses.every((status) => status === 200)).toBe(true);
        const entries = await log.read();
        expect(entries.map((entry) => entry.seq)).toEqual(Array.from({ length: 60 }, (_, index) => index + 1));
        expect(new Set(entries.map((entry) => entry.webhookId)).size).toBe(60);
        expect(await verifyAuditLog(entries)).toMatchObject({ ok: true, count: 60 });
      } finally {
        await log.close();
      }
    });
  });
}
