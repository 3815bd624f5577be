import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HEADERS } from '@kyc/contracts';
import { findSecrets } from '@kyc/test-support';
import { createStandardWebhooksVerifier } from '@kyc/webhook-receiver';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createDeliveryEngine,
  type DeliveryEngineError,
  generateSealingKey,
  loadSealingKeys,
  type SealingKey,
  sqliteDeliveryStore,
} from '../src/index.js';
import { bodyFor, pause, recordAttempts } from './support/attempts.js';
import { fullRun, newRunSecrets } from './support/full-run.js';
import { loopbackOptions, startReceiver } from './support/receiver.js';

// No Auth Key or signing secret in clear in any file the SQLite store leaves: the database,
// its -wal and -shm, a `VACUUM INTO` backup, the logs; also after opening a file written by the
// release before sealing (test/fixtures/release-before-v5, made with that release's build).

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const tempPath = (name = 'deliveries.db') => {
  const dir = mkdtempSync(join(tmpdir(), 'kyc-sealed-'));
  dirs.push(dir);
  return join(dir, name);
};
const filesOf = (path: string) => [path, `${path}-wal`, `${path}-shm`];
/** A `VACUUM INTO` backup taken by another connection while the store is open, as an operator's would be. */
function backupOf(path: string): string {
  const backup = join(dirname(path), 'backup.db');
  const reader = new Database(path, { readonly: true });
  reader.exec(`VACUUM INTO '${backup}'`);
  reader.close();
  return backup;
}
const startError = async (store: ReturnType<typeof sqliteDeliveryStore>) => {
  const engine = createDeliveryEngine({ store });
  const error = await engine.start().then(
    () => undefined,
    (e: unknown) => e as DeliveryEngineError,
  );
  await store.close();
  return error;
};

describe('the SQLite store keeps no secret in clear', () => {
  it('after a run with delivered, failed, redelivered and pending events: file, WAL, shm, backup, logs', async () => {
    const path = tempPath();
    const secrets = newRunSecrets();
    const store = sqliteDeliveryStore({ path });
    const { logs } = await fullRun(store, secrets);
    const backup = backupOf(path);
    expect(findSecrets({ files: [...filesOf(path), backup], texts: { logs } }, { ...secrets })).toEqual([]);
    await store.close();
    expect(findSecrets({ files: filesOf(path) }, { ...secrets })).toEqual([]);
    // The key sits beside the file, readable by its owner only.
    expect(statSync(`${path}.key`).mode & 0o777).toBe(0o600);
    expect(loadSealingKeys(`${path}.key`)).toHaveLength(1);
  });

  it('is refused with the wrong key or without one, naming the key id it needs; nothing is sent', async () => {
    const path = tempPath();
    const k1: SealingKey = { id: 'k1', key: randomBytes(32) };
    const receiver = await startReceiver(() => 200);
    try {
      const store = sqliteDeliveryStore({ path, sealingKeys: [k1] });
      await createDeliveryEngine({ store, ...(await loopbackOptions()) }).enqueue({
        url: receiver.url,
        body: bodyFor('wrong-key'),
        authKey: 'a-key-that-must-stay-sealed',
      });
      await store.close();

      const wrong = await startError(sqliteDeliveryStore({ path, sealingKeys: [{ id: 'k1', key: randomBytes(32) }] }));
      expect(wrong).toMatchObject({ code: 'sealing_key_wrong', message: expect.stringContaining('"k1"') });
      const other = await startError(sqliteDeliveryStore({ path, sealingKeys: [{ id: 'k2', key: randomBytes(32) }] }));
      expect(other).toMatchObject({ code: 'sealing_key_missing', message: expect.stringContaining('"k1"') });
      // Its own key file: deleted, the store says which key it needs and where it looked.
      const filed = tempPath();
      const first = sqliteDeliveryStore({ path: filed });
      await createDeliveryEngine({ store: first, ...(await loopbackOptions()) }).enqueue({
        url: receiver.url,
        body: bodyFor('key-file'),
        authKey: 'a-key-that-must-stay-sealed',
      });
      await first.close();
      const [{ id } = { id: '' }] = loadSealingKeys(`${filed}.key`);
      unlinkSync(`${filed}.key`);
      const lost = await startError(sqliteDeliveryStore({ path: filed }));
      expect(lost).toMatchObject({ code: 'sealing_key_missing' });
      expect(lost?.message).toContain(`"${id}"`);
      expect(lost?.message).toContain(`${filed}.key`);
      expect(existsSync(`${filed}.key`)).toBe(false);
      expect(receiver.requests).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });

  it('does not open a key whose row was pointed at another host: nothing is sent there', async () => {
    const path = tempPath();
    const company = await startReceiver(() => 200);
    const elsewhere = await startReceiver(() => 200);
    const attempts = recordAttempts();
    const store = sqliteDeliveryStore({ path });
    const engine = createDeliveryEngine({ store, ...(await loopbackOptions()), ...attempts });
    try {
      const { id } = await engine.enqueue({
        url: company.url,
        body: bodyFor('moved'),
        authKey: 'the-companys-auth-key',
      });
      // Someone who can write the file, without its key, points the row at another host.
      const raw = new Database(path);
      raw.prepare('UPDATE deliveries SET url = ?, origin = ? WHERE id = ?').run(elsewhere.url, elsewhere.origin, id);
      raw.close();
      await engine.start();
      await attempts.waitFor(1);
      expect(attempts.events[0]?.attempt).toMatchObject({ outcome: 'credentials_error' });
      expect(attempts.events[0]?.attempt.errorMessage).toMatch(/^sealing_key_wrong: /);
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await engine.stop();
      await store.close();
      await company.close();
      await elsewhere.close();
    }
  });

  it('re-seals a backlog under a new key while it is delivered; the old key is then retired and gone from the file', async () => {
    const path = tempPath();
    const k1 = generateSealingKey();
    const k2 = { id: 'k-next', key: randomBytes(32).toString('base64') };
    const authKey = randomBytes(24).toString('base64url');
    const signingSecret = `whsec_${randomBytes(32).toString('base64')}`;
    const receiver = await startReceiver(() => ({ status: 200, delayMs: 5 }));
    const backlog = 300;
    try {
      const before = sqliteDeliveryStore({ path, sealingKeys: [k1] });
      const producer = createDeliveryEngine({ store: before, ...(await loopbackOptions()) });
      for (let i = 0; i < backlog; i++) {
        await producer.enqueue({ id: `b${i}`, url: receiver.url, body: bodyFor(`b${i}`), authKey, signingSecret });
      }
      await before.close();

      const rotating = sqliteDeliveryStore({ path, sealingKeys: [k2, k1] });
      const attempts = recordAttempts();
      const engine = createDeliveryEngine({
        store: rotating,
        concurrency: 4,
        ...(await loopbackOptions()),
        ...attempts,
      });
      await engine.start();
      await attempts.waitFor(10);
      const result = await rotating.resealSecrets?.();
      expect(result).toMatchObject({ sealingKeyId: 'k-next', retiredKeyIds: [k1.id] });
      expect(result?.resealed).toBeGreaterThan(0);
      await engine.stop();
      await rotating.close();
      const bytes = Buffer.concat(
        filesOf(path)
          .filter(existsSync)
          .map((file) => readFileSync(file)),
      );
      expect(bytes.includes(`kyc-sealed:1:${k1.id}:`)).toBe(false);

      // The old key can go: every pending delivery opens with the new one alone.
      const after = sqliteDeliveryStore({ path, sealingKeys: [k2] });
      const resumed = createDeliveryEngine({ store: after, ...(await loopbackOptions()), ...attempts });
      await resumed.start();
      for (
        let i = 0;
        i < 600 && new Set(receiver.requests.map((r) => r.headers[HEADERS.webhookId])).size < backlog;
        i++
      ) {
        await pause(20);
      }
      await resumed.stop();
      await after.close();
      expect(new Set(receiver.requests.map((r) => r.headers[HEADERS.webhookId])).size).toBe(backlog);
      expect(attempts.events.every((e) => e.attempt.outcome === 'delivered')).toBe(true);
      const verifier = createStandardWebhooksVerifier(signingSecret, { now: () => Date.now() });
      for (const request of receiver.requests) {
        expect(request.headers[HEADERS.authorization]).toBe(`Bearer ${authKey}`);
        const verdict = await verifier.verify(
          {
            id: String(request.headers[HEADERS.webhookId]),
            timestamp: String(request.headers[HEADERS.webhookTimestamp]),
            signature: String(request.headers[HEADERS.webhookSignature]),
          },
          new TextEncoder().encode(request.body),
        );
        expect(verdict.ok).toBe(true);
      }
    } finally {
      await receiver.close();
    }
  });
});

describe('a file written by the release before sealing', () => {
  const fixture = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'release-before-v5');
  const secrets = JSON.parse(readFileSync(join(fixture, 'secrets.json'), 'utf8')) as Record<string, string>;
  const { states: _states, ...clear } = secrets;

  it('is sealed at the first start and left with no clear copy; its pending deliveries go out with their keys', async () => {
    const path = tempPath();
    copyFileSync(join(fixture, 'deliveries.db'), path);
    copyFileSync(join(fixture, 'deliveries.db-wal'), `${path}-wal`);
    // The fixture is what it claims to be: every key in clear, in the file or its WAL.
    const found = findSecrets({ files: filesOf(path) }, clear);
    expect(new Set(found.map((f) => f.secret))).toEqual(new Set(Object.keys(clear)));

    const receiver = await startReceiver(() => 200);
    // The receiver of that run is gone: its pending deliveries go to this one.
    const moved = new Database(path);
    moved.prepare('UPDATE deliveries SET url = ?, origin = ?').run(receiver.url, receiver.origin);
    moved.close();
    const store = sqliteDeliveryStore({ path });
    const attempts = recordAttempts();
    const engine = createDeliveryEngine({ store, ...(await loopbackOptions()), ...attempts });
    try {
      await engine.start();
      await attempts.waitFor(3);
      const byId = (id: string) => receiver.requests.find((r) => r.headers[HEADERS.webhookId] === id);
      expect(byId('pending-1')?.headers[HEADERS.authorization]).toBe(`Bearer ${secrets.authKeyB}`);
      expect(byId('pending-2')?.headers[HEADERS.authorization]).toBe(`Bearer ${secrets.authKeyB}`);
      expect((await engine.getDelivery('failed-1'))?.attemptLog).toHaveLength(4);
      await engine.stop();
      expect(findSecrets({ files: [...filesOf(path), backupOf(path)] }, clear)).toEqual([]);
    } finally {
      await store.close();
      await receiver.close();
    }
    expect(findSecrets({ files: filesOf(path) }, clear)).toEqual([]);
  });
});
