import { AUTH_SCHEME, HEADERS, RESPONSE_SNIPPET_MAX_BYTES, WEBHOOK_RETRY_DELAYS_MS } from '@kyc/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AttemptRequest,
  type AttemptResult,
  type AttemptTarget,
  createDeliveryEngine,
  type DeliveryEngine,
  DeliveryEngineError,
  type DeliveryEngineOptions,
  REDACTED,
  type SelectTransport,
  sqliteDeliveryStore,
  type Transport,
} from '../src/index.js';
import { bodyFor, recordAttempts } from './support/attempts.js';
import { loopbackOptions, startReceiver, type TestReceiver } from './support/receiver.js';

const AUTH_KEY = 'Zq8!fT3#pLw6@xN1$vB4';
// Never dialled: an attempt sent by the engine's own transport would fail on DNS, not succeed.
const URL_OF_RECORD = 'https://hooks.example.com/kyc';

/** A transport that records what it was handed and answers with `answer`. */
function scriptedTransport(answer: (request: AttemptRequest, signal: AbortSignal) => Promise<AttemptResult>) {
  const sent: { request: AttemptRequest; signal: AbortSignal }[] = [];
  const transport: Transport = {
    send: (request, signal) => {
      sent.push({ request, signal: signal ?? new AbortController().signal });
      return answer(request, signal ?? new AbortController().signal);
    },
    close: async () => undefined,
  };
  return { transport, sent };
}

let engine: DeliveryEngine | undefined;
let receiver: TestReceiver | undefined;
afterEach(async () => {
  await engine?.stop({ graceMs: 0 });
  await receiver?.close();
  engine = undefined;
  receiver = undefined;
});

async function start(options: Partial<DeliveryEngineOptions>) {
  const attempts = recordAttempts();
  const warnings: string[] = [];
  engine = createDeliveryEngine({
    store: sqliteDeliveryStore({ path: ':memory:' }),
    ...(await loopbackOptions()),
    onAttempt: attempts.onAttempt,
    logger: { warn: (message) => warnings.push(message) },
    ...options,
  });
  await engine.start();
  return { engine, attempts, warnings };
}

describe('selectTransport', () => {
  it('hands the exact request to the selected transport, told which delivery, company and attempt it is', async () => {
    const targets: AttemptTarget[] = [];
    const tunnel = scriptedTransport(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { outcome: 'delivered', status: 200, latencyMs: 3 };
    });
    const { engine, attempts } = await start({
      selectTransport: (target) => {
        targets.push(target);
        return target.companyId === 'acme' ? tunnel.transport : undefined;
      },
    });
    const body = bodyFor('sel-1');
    const { id } = await engine.enqueue({ url: URL_OF_RECORD, body, authKey: AUTH_KEY, companyId: 'acme' });
    await attempts.waitFor(1);
    expect(targets).toEqual([{ deliveryId: id, companyId: 'acme', url: URL_OF_RECORD, attempt: 1 }]);
    const [{ request } = { request: undefined }] = tunnel.sent;
    expect(request?.url).toBe(URL_OF_RECORD);
    expect(request?.body).toBe(body);
    expect(request?.headers[HEADERS.authorization]).toBe(`${AUTH_SCHEME} ${AUTH_KEY}`);
    expect(request?.headers[HEADERS.webhookId]).toBe(id);
    expect(request?.headers[HEADERS.webhookAttempt]).toBe('1');
    const record = await engine.getDelivery(id);
    expect(record?.state).toBe('delivered');
    expect(record?.attemptLog[0]).toMatchObject({ outcome: 'delivered', status: 200, latencyMs: 3 });
    expect(record?.attemptLog[0]?.requestHeaders[HEADERS.authorization]).toBe(`${AUTH_SCHEME} ${REDACTED}`);
  });

  it('sends to the URL as usual when it answers undefined, and when it throws', async () => {
    receiver = await startReceiver(() => 200);
    const { engine, attempts, warnings } = await start({
      selectTransport: (target) => {
        if (target.companyId === 'broken') throw new Error('registry unavailable');
        return undefined;
      },
    });
    const plain = await engine.enqueue({ url: receiver.url, body: bodyFor('sel-2'), companyId: 'acme' });
    const broken = await engine.enqueue({ url: receiver.url, body: bodyFor('sel-3'), companyId: 'broken' });
    await attempts.waitFor(2);
    expect((await engine.getDelivery(plain.id))?.state).toBe('delivered');
    expect((await engine.getDelivery(broken.id))?.attemptLog[0]?.dialedAddress).toBe('127.0.0.1');
    expect(receiver.requests).toHaveLength(2);
    expect(warnings).toEqual(['selectTransport threw; the attempt goes to the delivery URL']);
  });

  it('keeps the 200-only rule, caps the snippet and clears the Auth Key, whatever the transport reports', async () => {
    const tunnel = scriptedTransport(async (request) => ({
      // A transport that calls a 204 delivered, and a receiver that echoes the request.
      outcome: 'delivered',
      status: 204,
      latencyMs: 2,
      responseSnippet: `echo ${request.headers[HEADERS.authorization]} ${'x'.repeat(RESPONSE_SNIPPET_MAX_BYTES * 2)}`,
      errorMessage: `note about ${AUTH_KEY}`,
    }));
    const { engine, attempts } = await start({ selectTransport: () => tunnel.transport });
    const { id } = await engine.enqueue({ url: URL_OF_RECORD, body: bodyFor('sel-4'), authKey: AUTH_KEY });
    await attempts.waitFor(1);
    const record = await engine.getDelivery(id);
    const attempt = record?.attemptLog[0];
    expect(record?.state).toBe('pending');
    expect(attempt?.outcome).toBe('unexpected_2xx');
    expect(attempt?.status).toBe(204);
    expect(Buffer.byteLength(attempt?.responseSnippet ?? '')).toBeLessThanOrEqual(RESPONSE_SNIPPET_MAX_BYTES);
    expect(attempt?.responseSnippet?.slice(0, 20)).toBe('echo [redacted] xxxx');
    expect(JSON.stringify(record)).not.toContain(AUTH_KEY);
    expect((record?.nextAttemptAt ?? 0) - (attempt?.startedAt ?? 0)).toBeGreaterThanOrEqual(WEBHOOK_RETRY_DELAYS_MS[0]);
  });

  it('records a timeout when no report comes within the deadline, and aborts the transport', async () => {
    const tunnel = scriptedTransport(
      (_request, signal) =>
        new Promise((resolve) => {
          // Reports only once told to give up, and too late: the engine has moved on.
          signal.addEventListener('abort', () =>
            setTimeout(() => resolve({ outcome: 'delivered', status: 200, latencyMs: 1 }), 50),
          );
        }),
    );
    const { engine, attempts } = await start({ selectTransport: () => tunnel.transport, deadlineMs: 300 });
    const started = Date.now();
    const { id } = await engine.enqueue({ url: URL_OF_RECORD, body: bodyFor('sel-5') });
    await attempts.waitFor(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    const record = await engine.getDelivery(id);
    expect(record?.attemptLog[0]).toMatchObject({ outcome: 'timeout' });
    expect(record?.attemptLog[0]?.errorMessage).toMatch(/no report from the selected transport within 300 ms/);
    expect(record?.state).toBe('pending');
    expect(tunnel.sent[0]?.signal.aborted).toBe(true);
  });

  it('records a transport that throws, or reports nonsense, as connection_reset', async () => {
    let call = 0;
    const tunnel = scriptedTransport(async () => {
      call++;
      if (call === 1) throw new Error(`tunnel broke while holding ${AUTH_KEY}`);
      return { outcome: 'delivered', latencyMs: 1 } as AttemptResult;
    });
    const { engine, attempts } = await start({ selectTransport: () => tunnel.transport });
    const thrown = await engine.enqueue({ url: URL_OF_RECORD, body: bodyFor('sel-6'), authKey: AUTH_KEY });
    await attempts.waitFor(1);
    const nonsense = await engine.enqueue({ url: URL_OF_RECORD, body: bodyFor('sel-7') });
    await attempts.waitFor(2);
    const first = (await engine.getDelivery(thrown.id))?.attemptLog[0];
    expect(first?.outcome).toBe('connection_reset');
    expect(first?.errorMessage).toBe('the selected transport failed: tunnel broke while holding [redacted]');
    const second = (await engine.getDelivery(nonsense.id))?.attemptLog[0];
    expect(second?.outcome).toBe('connection_reset');
    expect(second?.errorMessage).toMatch(/neither a status nor a known failure/);
  });

  it('gives a selected attempt in flight back unrecorded when stop() runs out of grace', async () => {
    const tunnel = scriptedTransport(() => new Promise(() => undefined));
    const { engine } = await start({ selectTransport: () => tunnel.transport });
    const { id } = await engine.enqueue({ url: URL_OF_RECORD, body: bodyFor('sel-8') });
    for (let i = 0; i < 100 && tunnel.sent.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(tunnel.sent).toHaveLength(1);
    await engine.stop({ graceMs: 50 });
    const record = await engine.getDelivery(id);
    expect(record).toMatchObject({ state: 'pending', attempts: 0 });
    expect(tunnel.sent[0]?.signal.aborted).toBe(true);
  });

  it('refuses a selectTransport that is not a function', () => {
    expect(() =>
      createDeliveryEngine({
        store: sqliteDeliveryStore({ path: ':memory:' }),
        selectTransport: 'tunnel' as unknown as SelectTransport,
      }),
    ).toThrow(DeliveryEngineError);
  });
});
