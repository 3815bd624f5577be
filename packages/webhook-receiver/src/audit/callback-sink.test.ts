import { sampleStatusWebhook } from '@kyc/contracts';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { auditSinkConformance } from '../../test/support/audit-conformance.js';
import { AUTH_KEY, deferred } from '../../test/support/receiver-table.js';
import {
  type AuditEntry,
  type AuditOptions,
  type AuditSink,
  auditTrail,
  callbackAuditSink,
  verifyAuditLog,
} from '../audit.js';
import { nodeSha256 } from '../audit-file.js';
import { createWebhookReceiver, type WebhookReceiverOptions } from '../index.js';
import { createTestRequest } from '../testing.js';

/** A log kept in an array by the callback sink: the simplest store a customer could give it. */
function memoryLog() {
  const entries: AuditEntry[] = [];
  return {
    entries,
    sink: callbackAuditSink((batch) => {
      entries.push(...batch);
    }),
  };
}

auditSinkConformance('callback sink', async () => {
  const log = memoryLog();
  return { sink: log.sink, read: async () => [...log.entries], close: async () => undefined };
});

const request = (webhookId: string, extra: Partial<Parameters<typeof createTestRequest>[0]> = {}) =>
  createTestRequest({ payload: sampleStatusWebhook, authKey: AUTH_KEY, webhookId, ...extra });

const receiverWith = (audit: AuditOptions, extra: Partial<WebhookReceiverOptions> = {}) =>
  createWebhookReceiver({
    authKeys: AUTH_KEY,
    onEvent: () => undefined,
    logger: {},
    audit: auditTrail(audit),
    ...extra,
  });

/** A sink that fails while `down` is true and stores otherwise. */
function flakySink() {
  const log = memoryLog();
  const state = { down: true };
  const sink: AuditSink = {
    append: (record) => (state.down ? Promise.reject(new Error('disk full')) : log.sink.append(record)),
  };
  return { sink, state, entries: log.entries };
}

describe('when the audit sink fails', () => {
  it('fail-closed (the default): a 200 becomes 503 + Retry-After; the redelivery is recorded as a duplicate', async () => {
    const flaky = flakySink();
    const errors: Record<string, unknown>[] = [];
    const receiver = receiverWith(
      { sink: flaky.sink },
      { logger: { error: (_message, fields) => errors.push({ ...fields }) } },
    );
    const first = await receiver.handle(request('evt_fc'));
    expect(first.status).toBe(503);
    expect(first.headers.get('retry-after')).toBe('60');
    expect(await first.json()).toMatchObject({ error: { code: 'audit_unavailable' } });
    // The lost entry went to the logger, without the body.
    expect(errors[0]).toMatchObject({ auditRecord: { webhookId: 'evt_fc', outcome: 'processed' } });

    flaky.state.down = false;
    const retry = await receiver.handle(request('evt_fc'));
    expect(retry.status).toBe(200);
    expect(flaky.entries.map((entry) => [entry.webhookId, entry.outcome])).toEqual([['evt_fc', 'duplicate']]);
  });

  it('fail-closed leaves an answer that is already a failure as it was (a 401 still says the key is wrong)', async () => {
    const flaky = flakySink();
    const receiver = receiverWith({ sink: flaky.sink });
    expect((await receiver.handle(request('evt_401', { authKey: 'kyc_test_wrong_key_00000' }))).status).toBe(401);
    expect((await receiver.handle(request('evt_405', { method: 'GET' }))).status).toBe(405);
  });

  it('fail-open: the answer stands and the entry goes to the logger', async () => {
    const flaky = flakySink();
    const errors: string[] = [];
    const receiver = receiverWith(
      { sink: flaky.sink, onFailure: 'fail-open' },
      { logger: { error: (message) => errors.push(message) } },
    );
    expect((await receiver.handle(request('evt_fo'))).status).toBe(200);
    expect(errors).toEqual(['audit entry not written; the answer stands']);
  });

  it('a sink that hangs counts as failed after timeoutMs', async () => {
    const hanging: AuditSink = { append: () => new Promise(() => undefined) };
    const receiver = receiverWith({ sink: hanging, timeoutMs: 50 });
    const started = performance.now();
    expect((await receiver.handle(request('evt_hang'))).status).toBe(503);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('a record still queued when the receiver gives up is dropped: no entry claims the 200 that became 503', async () => {
    const { promise: gate, resolve: release } = deferred();
    const { promise: writing, resolve: writeStarted } = deferred();
    const entries: AuditEntry[] = [];
    const sink = callbackAuditSink(async (batch) => {
      writeStarted();
      await gate;
      entries.push(...batch);
    });
    const receiver = receiverWith({ sink, timeoutMs: 50 });
    // The first write hangs in the store; the second, sent only once it does, waits behind it
    // in the queue (sent together, a loaded machine could finish either request first).
    const first = receiver.handle(request('evt_inflight'));
    await writing;
    const second = receiver.handle(request('evt_queued'));
    expect([(await first).status, (await second).status]).toEqual([503, 503]);
    release();
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The one already being written lands (docs/audit.md says so); the queued one never does.
    expect(entries.map((entry) => entry.webhookId)).toEqual(['evt_inflight']);
    expect((await receiver.handle(request('evt_next'))).status).toBe(200);
    expect(entries.map((entry) => entry.seq)).toEqual([1, 2]);
  });

  it('requests that reach the trail in one turn share one write, the first included', async () => {
    const batches: number[] = [];
    // Node's hash answers at once; Web Crypto's in the thread pool, each in a turn of its own.
    const sink = callbackAuditSink((batch) => void batches.push(batch.length), { sha256: nodeSha256 });
    const receiver = receiverWith({ sink });
    const body = new TextEncoder().encode(JSON.stringify(sampleStatusWebhook));
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, index) =>
        receiver.receive({
          method: 'POST',
          header: (name) => ({ authorization: `Bearer ${AUTH_KEY}`, 'webhook-id': `evt_turn_${index}` })[name],
          readBody: async () => body,
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(16).fill(200));
    // Before, the first request started a write on its own and the other 15 waited for the next.
    expect(batches).toEqual([16]);
  });

  it('a failed batch does not advance the chain: later entries still verify', async () => {
    let fail = true;
    const entries: AuditEntry[] = [];
    const sink = callbackAuditSink((batch) => {
      if (fail) throw new Error('store down');
      entries.push(...batch);
    });
    const receiver = receiverWith({ sink });
    expect((await receiver.handle(request('evt_a'))).status).toBe(503);
    fail = false;
    expect((await receiver.handle(request('evt_b'))).status).toBe(200);
    expect(entries.map((entry) => entry.seq)).toEqual([1]);
    expect(await verifyAuditLog(entries)).toMatchObject({ ok: true, count: 1 });
  });
});

describe('what an entry holds', () => {
  it("the body's SHA-256 from a sink whose hash answers with a thenable rather than a Promise", async () => {
    const entries: AuditEntry[] = [];
    const digest = 'ab'.repeat(32);
    // A thenable as the specification allows: its `then` returns nothing.
    const thenable = {
      // biome-ignore lint/suspicious/noThenProperty: a thenable that is not a Promise is the case under test.
      then(resolve: (value: string) => void): void {
        resolve(digest);
      },
    };
    const sink = callbackAuditSink((batch) => void entries.push(...batch), {
      sha256: () => thenable as unknown as Promise<string>,
    });
    expect((await receiverWith({ sink }).handle(request('evt_thenable'))).status).toBe(200);
    expect(entries).toMatchObject([{ webhookId: 'evt_thenable', bodySha256: digest }]);
  });

  it('the raw body only with includeBody; bytes that are not UTF-8 in base64', async () => {
    const log = memoryLog();
    const receiver = receiverWith({ sink: log.sink, includeBody: true });
    const body = JSON.stringify(sampleStatusWebhook);
    await receiver.handle(request('evt_body', { payload: body }));
    await receiver.handle(request('evt_bin', { payload: new Uint8Array([0xff, 0xfe, 0x00]) }));
    expect(log.entries[0]?.body).toBe(body);
    expect(log.entries[1]).toMatchObject({ outcome: 'invalid', bodyBase64: '//4A', bodyLength: 3 });
    expect(log.entries[1]?.body).toBeUndefined();
  });

  it('signature headers as received, whether they verified, and which secret matched (by position and label)', async () => {
    const secrets = ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'whsec_dGhpcyBpcyBhIHRlc3Qgc2VjcmV0IGtleSA='];
    const log = memoryLog();
    const receiver = receiverWith({ sink: log.sink, signingSecretLabels: ['old', 'new'] }, { signingSecrets: secrets });
    const body = JSON.stringify(sampleStatusWebhook);
    const at = new Date();
    const signature = new Webhook(secrets[1] as string).sign('msg_sig', at, body);
    const headers = { 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature };
    expect((await receiver.handle(request('msg_sig', { payload: body, headers }))).status).toBe(200);
    const tampered = body.replace('APPROVED', 'REJECTED');
    expect((await receiver.handle(request('msg_sig', { payload: tampered, headers }))).status).toBe(401);
    expect(log.entries[0]).toMatchObject({
      signatureHeaders: { 'webhook-id': 'msg_sig', ...headers },
      signatureVerified: true,
      signingSecretIndex: 1,
      signingSecretLabel: 'new',
    });
    expect(log.entries[1]).toMatchObject({
      signatureVerified: false,
      signingSecretIndex: null,
      code: 'invalid_signature',
    });
    const text = JSON.stringify(log.entries);
    for (const secret of secrets) expect(text).not.toContain(secret.slice('whsec_'.length));
  });

  it('refuses a label that holds a key', () => {
    expect(() => receiverWith({ sink: memoryLog().sink, authKeyLabels: [`key ${AUTH_KEY}`] })).toThrow(
      /authKeyLabels\[0\] contains a configured key/,
    );
    expect(() => receiverWith({ sink: memoryLog().sink, authKeyLabels: [AUTH_KEY.slice(2, 14)] })).toThrow(
      /authKeyLabels\[0\]/,
    );
    expect(() => receiverWith({ sink: {} as AuditSink })).toThrow(/auditTrail: sink must have an append/);
    expect(() => receiverWith({ sink: memoryLog().sink, onFailure: 'maybe' as 'fail-open' })).toThrow(/onFailure/);
    expect(() =>
      createWebhookReceiver({
        authKeys: AUTH_KEY,
        onEvent: () => undefined,
        audit: { sink: memoryLog().sink } as never,
      }),
    ).toThrow(/audit must be auditTrail\(\{ sink, … \}\)/);
  });
});
