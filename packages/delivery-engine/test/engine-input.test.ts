import { DEFAULT_MAX_BODY_BYTES } from '@kyc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDeliveryEngine,
  createManualClock,
  type DeliveryEngine,
  DeliveryEngineError,
  type DeliveryEngineOptions,
  parseIp,
  sqliteDeliveryStore,
  validateAuthKey,
} from '../src/index.js';
import { bodyFor } from './support/attempts.js';

// Bad input at every public entry point is a DeliveryEngineError with a stable code and a
// message naming the argument; nothing crashes, hangs or echoes a secret.

const SECRET = 'Sup3r-s3cret-K3y-value!';
const URL_ = 'https://127.0.0.1:9/hook';
let engine: DeliveryEngine;

beforeAll(async () => {
  engine = createDeliveryEngine({
    store: sqliteDeliveryStore({ path: ':memory:' }),
    allowPrivateNetworks: ['127.0.0.0/8'],
  });
  await engine.enqueue({ id: 'known', url: URL_, body: bodyFor('known') });
});
afterAll(async () => {
  await engine.stop();
});

async function refusal(promise: Promise<unknown>): Promise<DeliveryEngineError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DeliveryEngineError);
  return error as DeliveryEngineError;
}

describe('createDeliveryEngine options', () => {
  const store = sqliteDeliveryStore({ path: ':memory:' });
  it.each([
    [{ store: undefined }, 'store'],
    [{ store, concurrency: 0 }, 'concurrency'],
    [{ store, concurrency: 1.5 }, 'concurrency'],
    [{ store, perEndpointConcurrency: 100 }, 'perEndpointConcurrency'],
    [{ store, deadlineMs: 60_000 }, 'deadlineMs'],
    [{ store, deadlineMs: 1000, leaseMs: 1000 }, 'leaseMs'],
    [{ store, pollIntervalMs: -1 }, 'pollIntervalMs'],
    [{ store, jitter: 2 }, 'jitter'],
    [{ store, jitter: Number.NaN }, 'jitter'],
    [{ store, maxWorkerLosses: 0 }, 'maxWorkerLosses'],
    [{ store, signing: { secret: SECRET } }, 'signing.secret'],
    [{ store, signing: null }, 'signing.secret'],
    [{ store, clock: { now: () => 0 } }, 'clock'],
    [{ store, resolver: {} }, 'resolver'],
    [{ store, onAttempt: 'log' }, 'onAttempt'],
    [{ store, credentials: { authKey: 'x' } }, 'credentials'],
    [{ store, logger: 'console' }, 'logger'],
    [{ store, tls: 'ca.pem' }, 'tls'],
    [{ store, tls: { ca: 'not a certificate' } }, 'tls.ca'],
    [{ store, allowPrivateNetworks: '10.0.0.0/8' }, 'allowPrivateNetworks'],
    [{ store, allowPrivateNetworks: ['10.0.0.0/33'] }, 'allowPrivateNetworks[0]'],
    [{ store, proxy: 42 }, 'proxy'],
    [{ store, proxy: `http://user:${SECRET}@` }, 'proxy'],
  ])('%o is refused, naming %s', (options, name) => {
    let error: unknown;
    try {
      createDeliveryEngine(options as unknown as DeliveryEngineOptions);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DeliveryEngineError);
    expect((error as DeliveryEngineError).code).toBe('invalid_option');
    expect((error as Error).message).toContain(name);
    expect((error as Error).message).not.toContain('s3cret');
  });

  it('refuses a missing options object', () => {
    expect(() => createDeliveryEngine(undefined as unknown as DeliveryEngineOptions)).toThrow(DeliveryEngineError);
  });
});

describe('enqueue', () => {
  it.each([
    [null, 'invalid_event', 'event object'],
    ['https://example.com', 'invalid_event', 'event object'],
    [{ url: 42, body: bodyFor('x') }, 'invalid_url', 'event.url'],
    [{ url: `https://user:${SECRET}@127.0.0.1/`, body: bodyFor('x') }, 'invalid_url', 'event.url'],
    [{ url: URL_, body: undefined }, 'invalid_event', 'event.body'],
    [{ url: URL_, body: 42 }, 'invalid_event', 'event.body'],
    [{ url: URL_, body: '{' }, 'invalid_event', 'event.body'],
    [{ url: URL_, body: { toJSON: () => undefined } }, 'invalid_event', 'event.body'],
    [{ url: URL_, body: { sessionId: 's', big: 10n } }, 'invalid_event', 'event.body'],
    [{ url: URL_, body: { noSessionId: true } }, 'invalid_event', 'event.body'],
    [{ url: URL_, body: bodyFor('x'), id: '' }, 'invalid_event', 'event.id'],
    [{ url: URL_, body: bodyFor('x'), id: 'has space' }, 'invalid_event', 'event.id'],
    [{ url: URL_, body: bodyFor('x'), authKey: `${SECRET}\r\nX-Injected: 1` }, 'invalid_auth_key', 'event.authKey'],
    [{ url: URL_, body: bodyFor('x'), authKey: 42 }, 'invalid_auth_key', 'event.authKey'],
    [{ url: URL_, body: bodyFor('x'), signingSecret: `whsec_${SECRET}` }, 'invalid_option', 'event.signingSecret'],
  ])('%o → %s naming %s', async (event, code, name) => {
    const error = await refusal(engine.enqueue(event as never));
    expect(error.code).toBe(code);
    expect(error.message).toContain(name);
    expect(error.message).not.toContain('s3cret');
  });

  it(`refuses a body over ${DEFAULT_MAX_BODY_BYTES} bytes, which every receiver would answer with 413`, async () => {
    const body = JSON.stringify({ sessionId: 'big', padding: 'é'.repeat(DEFAULT_MAX_BODY_BYTES / 2) });
    const error = await refusal(engine.enqueue({ url: URL_, body }));
    expect(error).toMatchObject({ code: 'invalid_event', message: expect.stringContaining('event.body') });
    const atLimit = JSON.stringify({ sessionId: 'fits', padding: 'x'.repeat(DEFAULT_MAX_BODY_BYTES - 40) });
    expect((await engine.enqueue({ url: URL_, body: atLimit })).created).toBe(true);
  });

  it('refuses a transaction with the SQLite store instead of committing outside it', async () => {
    const error = await refusal(engine.enqueue({ url: URL_, body: bodyFor('tx') }, { transaction: {} as never }));
    expect(error).toMatchObject({ code: 'invalid_option', message: expect.stringContaining('transaction') });
    expect(await engine.listDeliveries({ url: URL_, limit: 1000 })).not.toContainEqual(
      expect.objectContaining({ body: bodyFor('tx') }),
    );
    await expect(engine.enqueue({ url: URL_, body: bodyFor('tx') }, 'nope' as never)).rejects.toMatchObject({
      code: 'invalid_option',
    });
  });
});

describe('reads, redeliver and stop', () => {
  it.each([[undefined], [42], [''], [{ id: 'known' }]])('getDelivery(%o) and redeliver(%o) are refused', async (id) => {
    for (const call of [engine.getDelivery(id as never), engine.redeliver(id as never)]) {
      expect((await refusal(call)).code).toBe('invalid_event');
    }
  });

  it('redeliver of an unknown id is not_found, with the id cut short in the message', async () => {
    const error = await refusal(engine.redeliver('x'.repeat(5000)));
    expect(error.code).toBe('not_found');
    expect(error.message.length).toBeLessThan(200);
    expect((await refusal(engine.redeliver('known'))).code).toBe('in_progress');
  });

  it.each([
    ['a string', 'pending'],
    ['an unknown state', { state: 'lost' }],
    ['a misspelt key', { status: 'failed' }],
    ['a non-string url', { url: 1 }],
    ['a date object', { createdSince: new Date() }],
    ['NaN', { createdBefore: Number.NaN }],
    ['a zero limit', { limit: 0 }],
    ['a fractional limit', { limit: 2.5 }],
  ])('listDeliveries refuses %s', async (_label, filter) => {
    const error = await refusal(engine.listDeliveries(filter as never));
    expect(error.code).toBe('invalid_option');
    expect(error.message).toContain('listDeliveries');
  });

  it('stop refuses a bad grace period', async () => {
    for (const bad of [{ graceMs: -1 }, { graceMs: Number.POSITIVE_INFINITY }, { graceMs: '5s' }, 'now']) {
      expect((await refusal(engine.stop(bad as never))).code).toBe('invalid_option');
    }
  });
});

describe('stores and validators', () => {
  it('sqliteDeliveryStore refuses a bad path or an unopenable file with a typed error', () => {
    expect(() => sqliteDeliveryStore(undefined as never)).toThrow(DeliveryEngineError);
    expect(() => sqliteDeliveryStore({ path: 42 as never })).toThrow(/path/);
    expect(() => sqliteDeliveryStore({ path: '/nonexistent-dir/x/y.db' })).toThrow(DeliveryEngineError);
  });

  it('createManualClock and parseIp answer bad input without a crash', () => {
    expect(() => createManualClock(Number.NaN)).toThrow(DeliveryEngineError);
    const clock = createManualClock(0);
    expect(() => clock.advance(Number.NaN)).toThrow(/advance/);
    expect(() => clock.set('soon' as never)).toThrow(/set/);
    expect(clock.now()).toBe(0);
    for (const value of [undefined, null, 42, {}]) expect(parseIp(value as never)).toBeUndefined();
  });

  it('validateAuthKey never throws on odd options', () => {
    for (const options of [null, 'acme', { userInputs: 'acme' }, { userInputs: [1, null] }]) {
      expect(validateAuthKey('x7Kq9mP2vL4nR8sT', options as never)).toEqual({ ok: true });
    }
  });
});
