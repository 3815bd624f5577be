import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HEADERS, WEBHOOK_RETRY_DELAYS_MS } from '@kyc/contracts';
import { findSecrets, postgresAvailable } from '@kyc/test-support';
import { createStandardWebhooksVerifier } from '@kyc/webhook-receiver';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AttemptTarget,
  CREDENTIALS_ERROR_OUTCOME,
  createDeliveryEngine,
  createManualClock,
  type DeliveryCredentials,
  type DeliveryEngine,
  sqliteDeliveryStore,
} from '../src/index.js';
import { postgresDeliveryStore } from '../src/postgres.js';
import { bodyFor, pause, recordAttempts } from './support/attempts.js';
import { pgDumpOf } from './support/postgres-bytes.js';
import { poolsEndedAfterAll, uniqueSchema } from './support/postgres-schema.js';
import { loopbackOptions, type ReceivedRequest, startReceiver, type TestReceiver } from './support/receiver.js';

// The `credentials` hook: a service keeps its companies' keys in its own vault, the engine asks
// for them at each attempt, its store holds none, and a retry carries the key configured now.

const newKey = () => randomBytes(24).toString('base64url');
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const tempPath = () => {
  const dir = mkdtempSync(join(tmpdir(), 'kyc-credentials-'));
  dirs.push(dir);
  return join(dir, 'deliveries.db');
};

/** The service's own vault: the company's key and signing secrets as configured right now. */
const vault = new Map<string, { authKey: string; signingSecrets: string[] }>();
let receiver: TestReceiver;
beforeAll(async () => {
  // Accepts only keys the companies have now (their receivers were given them), no older one.
  receiver = await startReceiver((request: ReceivedRequest) => {
    const keys = [...vault.values()].map((company) => `Bearer ${company.authKey}`);
    return keys.includes(String(request.headers[HEADERS.authorization])) ? 200 : 401;
  });
});
afterAll(() => receiver.close());

describe('credentials at send time', () => {
  it('a redelivery after the company changed its key carries the new key (asked at each attempt)', async () => {
    const attempts = recordAttempts();
    const oldKey = newKey();
    const newOne = newKey();
    vault.set('beta', { authKey: oldKey, signingSecrets: [] });
    const asked: AttemptTarget[] = [];
    const store = sqliteDeliveryStore({ path: tempPath() });
    const engine = createDeliveryEngine({
      store,
      ...(await loopbackOptions()),
      ...attempts,
      credentials: async (target) => {
        asked.push(target);
        return { authKey: vault.get(String(target.companyId))?.authKey };
      },
    });
    try {
      await engine.start();
      const { id } = await engine.enqueue({ url: receiver.url, body: bodyFor('redeliver-new-key'), companyId: 'beta' });
      await attempts.waitFor(1);
      expect(attempts.events[0]?.attempt.status).toBe(200);
      // The company rotates: its receiver now accepts the new key only.
      vault.set('beta', { authKey: newOne, signingSecrets: [] });
      await engine.redeliver(id);
      await attempts.waitFor(2);
      expect(attempts.events[1]?.attempt.status).toBe(200);
      const sent = receiver.requests.filter((r) => r.headers[HEADERS.webhookId] === id);
      expect(sent.map((r) => r.headers[HEADERS.authorization])).toEqual([`Bearer ${oldKey}`, `Bearer ${newOne}`]);
      expect(asked.map((t) => [t.deliveryId, t.companyId, t.url, t.attempt])).toEqual([
        [id, 'beta', receiver.url, 1],
        [id, 'beta', receiver.url, 2],
      ]);
    } finally {
      await engine.stop();
      await store.close();
    }
  });

  it('retries with the key configured now: attempt 1 refused (old key), attempt 2 after a minute carries the new key', async () => {
    const path = tempPath();
    const clock = createManualClock(Date.parse('2026-11-21T10:00:00Z'));
    const attempts = recordAttempts();
    const serviceKey = { current: newKey() };
    const customerKey = newKey();
    const secret = newSecret();
    // The customer's receiver expects `customerKey`; the service still has another one saved.
    vault.set('gamma', { authKey: customerKey, signingSecrets: [secret] });
    const store = sqliteDeliveryStore({ path });
    const engine = createDeliveryEngine({
      store,
      clock,
      ...(await loopbackOptions()),
      ...attempts,
      credentials: ({ companyId }) =>
        companyId === 'gamma' ? { authKey: serviceKey.current, signingSecrets: [secret] } : undefined,
    });
    const recordedKey = (request: ReceivedRequest | undefined) => request?.headers[HEADERS.authorization];
    try {
      await engine.start();
      const { id } = await engine.enqueue({
        url: receiver.url,
        body: bodyFor('retry-with-new-key'),
        companyId: 'gamma',
      });
      await attempts.waitFor(1);
      expect(attempts.events[0]?.attempt).toMatchObject({ status: 401, outcome: 'client_error' });
      // The company saves the key its receiver expects, between attempt 1 and attempt 2.
      serviceKey.current = customerKey;
      await pause(50);
      clock.advance((WEBHOOK_RETRY_DELAYS_MS[0] ?? 60_000) + 1);
      await attempts.waitFor(2);
      expect(attempts.events[1]?.attempt).toMatchObject({ status: 200, outcome: 'delivered' });
      const sent = receiver.requests.filter((r) => r.headers[HEADERS.webhookId] === id);
      expect(recordedKey(sent[1])).toBe(`Bearer ${customerKey}`);
      expect(recordedKey(sent[0])).not.toBe(recordedKey(sent[1]));
      // Signed with the secret the hook gave.
      // Stamped on the engine's clock (a manual one here, days behind the wall's).
      const verdict = await createStandardWebhooksVerifier(secret, { now: () => clock.now() }).verify(
        {
          id: String(sent[1]?.headers[HEADERS.webhookId]),
          timestamp: String(sent[1]?.headers[HEADERS.webhookTimestamp]),
          signature: String(sent[1]?.headers[HEADERS.webhookSignature]),
        },
        new TextEncoder().encode(sent[1]?.body),
      );
      expect(verdict.ok).toBe(true);
      await engine.stop();
      await store.close();
      // Nothing secret reached the store: no sealed value either, and no byte of the keys.
      const raw = new Database(path, { readonly: true });
      const stored = raw.prepare('SELECT sealed_auth_key, sealed_signing_secret FROM deliveries').all();
      raw.close();
      expect(stored).toEqual([{ sealed_auth_key: null, sealed_signing_secret: null }]);
      expect(
        findSecrets(
          { files: [path, `${path}-wal`] },
          { customerKey, first: String(recordedKey(sent[0])).slice(7), secret },
        ),
      ).toEqual([]);
    } finally {
      await engine.stop();
      await store.close();
    }
  });

  describe('a hook that fails', () => {
    const cases: [
      string,
      (target: AttemptTarget) => DeliveryCredentials | undefined | Promise<DeliveryCredentials | undefined>,
      RegExp,
    ][] = [
      [
        'throws',
        () => {
          throw new TypeError('vault down: token s3cr3t-vault-token');
        },
        /credentials hook threw TypeError/,
      ],
      [
        'rejects',
        () => Promise.reject(Object.assign(new Error('s3cr3t-vault-token'), { code: 'ECONNREFUSED' })),
        /threw Error \(code ECONNREFUSED\)/,
      ],
      ['answers a number', () => 42 as unknown as DeliveryCredentials, /neither an object/],
      [
        'answers a key with a space',
        () => ({ authKey: 's3cr3t vault token' }),
        /authKey that is not a string of visible ASCII/,
      ],
      [
        'answers a bad signing secret',
        () => ({ authKey: newKey(), signingSecrets: ['not-a-whsec'] }),
        /signing secret must start with "whsec_"/,
      ],
      ['never answers', () => new Promise<DeliveryCredentials>(() => undefined), /did not answer within 300 ms/],
    ];

    it.each(cases)(
      '%s: a credentials_error attempt, logged without the secret; nothing sent; retried; the loop goes on',
      async (_name, hook, reason) => {
        const clock = createManualClock(Date.parse('2026-11-21T10:00:00Z'));
        const attempts = recordAttempts();
        const logs: string[] = [];
        const store = sqliteDeliveryStore({ path: ':memory:' });
        let engine: DeliveryEngine | undefined;
        const key = newKey();
        vault.set('delta', { authKey: key, signingSecrets: [] });
        try {
          engine = createDeliveryEngine({
            store,
            clock,
            deadlineMs: 300,
            ...(await loopbackOptions()),
            ...attempts,
            logger: {
              error: (m, f) => logs.push(`${m} ${JSON.stringify(f)}`),
              warn: (m, f) => logs.push(`${m} ${JSON.stringify(f)}`),
            },
            credentials: (target) => (target.companyId === 'delta' ? { authKey: key } : hook(target)),
          });
          await engine.start();
          const before = receiver.requests.length;
          const { id } = await engine.enqueue({ url: receiver.url, body: bodyFor('bad-hook'), companyId: 'broken' });
          await attempts.waitFor(1, 5_000);
          const [first] = attempts.events;
          expect(first?.attempt.outcome).toBe(CREDENTIALS_ERROR_OUTCOME);
          expect(first?.attempt.errorMessage).toMatch(reason);
          expect(first?.attempt.errorMessage).toMatch(/nothing was sent$/);
          expect(first?.state).toBe('pending');
          expect(receiver.requests.length).toBe(before);
          expect(logs.join('\n')).toMatch(/no credentials for an attempt: nothing sent/);
          expect(logs.join('\n')).not.toMatch(/s3cr3t/);
          expect(JSON.stringify(attempts.events)).not.toMatch(/s3cr3t/);
          // The loop goes on: another company's event is delivered meanwhile.
          await engine.enqueue({ url: receiver.url, body: bodyFor('good-hook'), companyId: 'delta' });
          await attempts.waitFor(2, 5_000);
          expect(attempts.events[1]?.attempt.outcome).toBe('delivered');
          // Retried on the schedule: the second attempt of the broken one comes a minute later.
          await pause(20);
          clock.advance((WEBHOOK_RETRY_DELAYS_MS[0] ?? 60_000) + 1);
          await attempts.waitFor(3, 5_000);
          expect(attempts.events[2]?.deliveryId).toBe(id);
          expect((await engine.getDelivery(id))?.attempts).toBe(2);
        } finally {
          await engine?.stop();
          await store.close();
        }
      },
    );
  });

  it('undefined from the hook means "not mine": the key the event was enqueued with (sealed) is sent', async () => {
    const key = newKey();
    vault.set('acme', { authKey: key, signingSecrets: [] });
    const attempts = recordAttempts();
    const store = sqliteDeliveryStore({ path: ':memory:' });
    const engine = createDeliveryEngine({
      store,
      ...(await loopbackOptions()),
      ...attempts,
      credentials: () => undefined,
    });
    try {
      await engine.start();
      const { id } = await engine.enqueue({ url: receiver.url, body: bodyFor('fallback'), authKey: key });
      await attempts.waitFor(1);
      expect(attempts.events[0]?.attempt.outcome).toBe('delivered');
      expect(receiver.requests.find((r) => r.headers[HEADERS.webhookId] === id)?.headers[HEADERS.authorization]).toBe(
        `Bearer ${key}`,
      );
    } finally {
      await engine.stop();
      await store.close();
    }
  });
});

describe.skipIf(!(await postgresAvailable()))('credentials at send time on Postgres', () => {
  const newPool = poolsEndedAfterAll();

  it('a store without a sealing key: the service keeps every key, the database and its dump none', async () => {
    const schema = uniqueSchema('creds');
    const pool = newPool();
    const key = newKey();
    vault.set('acme', { authKey: key, signingSecrets: [] });
    const attempts = recordAttempts();
    const engine = createDeliveryEngine({
      store: postgresDeliveryStore({ pool, schema }),
      ...(await loopbackOptions()),
      ...attempts,
      credentials: ({ companyId }) => ({ authKey: vault.get(String(companyId))?.authKey }),
    });
    try {
      await engine.start();
      await engine.enqueue({ url: receiver.url, body: bodyFor('pg-creds'), companyId: 'acme' });
      await attempts.waitFor(1);
      expect(attempts.events[0]?.attempt.outcome).toBe('delivered');
      await engine.stop();
      expect(findSecrets({ texts: { dump: pgDumpOf(schema) } }, { key })).toEqual([]);
    } finally {
      await engine.stop();
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    }
  });
});
