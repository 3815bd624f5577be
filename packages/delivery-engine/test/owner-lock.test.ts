import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDeliveryEngine, DeliveryEngineError, sqliteDeliveryStore } from '../src/index.js';
import { bodyFor } from './support/attempts.js';
import { type Answer, loopbackOptions, startReceiver, testCertificate } from './support/receiver.js';
import { spawnWorker } from './support/spawn-worker.js';

const dir = mkdtempSync(join(tmpdir(), 'kyc-owner-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const workerConfig = async (path: string) => ({
  store: 'sqlite',
  path,
  ca: (await testCertificate()).cert,
  concurrency: 4,
  leaseMs: 10_000,
  deadlineMs: 5_000,
});

describe('the owner of an SQLite file', () => {
  it('refuses a second engine in another process, naming the owner and what to do', { timeout: 60_000 }, async () => {
    const path = join(dir, 'second.db');
    const store = sqliteDeliveryStore({ path });
    const engine = createDeliveryEngine({ store, ...(await loopbackOptions()) });
    await engine.start();
    try {
      const second = spawnWorker(await workerConfig(path));
      expect(await second.exited).toBe(3);
      const refusal = second.stdout();
      expect(refusal).toContain('refused store_locked');
      expect(refusal).toContain(`owned by another delivery engine (process ${process.pid} on `);
      expect(refusal).toMatch(
        /stop the other engine .* give this engine its own file, or open every process on this file with \{ mode: 'shared' \}/,
      );
    } finally {
      await engine.stop();
      await store.close();
    }
  });

  it('refuses a second handle in the same process until the first closes, and lets readers read', async () => {
    const path = join(dir, 'same.db');
    const receiver = await startReceiver(() => 200);
    const first = sqliteDeliveryStore({ path });
    const engine = createDeliveryEngine({ store: first, ...(await loopbackOptions()) });
    const { id } = await engine.enqueue({ url: receiver.url, body: bodyFor('same-1') });
    const second = sqliteDeliveryStore({ path });
    const error = await second.acquireOwnership?.().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DeliveryEngineError);
    expect(error).toMatchObject({ code: 'store_locked', message: expect.stringContaining('(it is in this process)') });
    await expect(createDeliveryEngine({ store: second, ...(await loopbackOptions()) }).start()).rejects.toMatchObject({
      code: 'store_locked',
    });
    // Reading never takes the lock.
    expect((await second.get(id))?.state).toBe('pending');
    await first.close();
    const successor = createDeliveryEngine({ store: second, ...(await loopbackOptions()) });
    await successor.start();
    await receiver.waitFor(1);
    await successor.stop();
    expect((await second.get(id))?.state).toBe('delivered');
    await second.close();
    await receiver.close();
  });

  it('hands the file to a successor at once when the owner is killed, and it delivers what was acknowledged', {
    timeout: 60_000,
  }, async () => {
    const path = join(dir, 'killed.db');
    // The receiver holds every request until the owner is dead: it dies with attempts in flight.
    let answer: Answer = 'hang';
    const receiver = await startReceiver(() => answer);
    const producer = sqliteDeliveryStore({ path });
    const enqueuer = createDeliveryEngine({ store: producer, ...(await loopbackOptions()) });
    const ids: string[] = [];
    for (let i = 0; i < 20; i++)
      ids.push((await enqueuer.enqueue({ url: receiver.url, body: bodyFor(`kill-${i}`) })).id);
    await producer.close();
    const owner = spawnWorker(await workerConfig(path));
    await owner.started;
    await receiver.waitFor(4);
    owner.child.kill('SIGKILL');
    expect(await owner.exited).toBe('SIGKILL');
    const inFlightAtKill = receiver.requests.map((request) => String(request.headers['webhook-id']));

    // No stale lock to clear: the successor starts at once and sends all twenty, the four that
    // were in flight a second time (at least once), nothing a third time.
    answer = 200;
    const store = sqliteDeliveryStore({ path });
    const successor = createDeliveryEngine({ store, ...(await loopbackOptions()) });
    try {
      await successor.start();
      await receiver.waitFor(20 + inFlightAtKill.length);
      await successor.stop();
      for (const id of ids) {
        expect((await store.get(id))?.state, id).toBe('delivered');
        expect(receiver.counts.get(id), id).toBe(inFlightAtKill.includes(id) ? 2 : 1);
      }
    } finally {
      await store.close();
      await receiver.close();
    }
  });

  it('keeps an owner and processes of the shared mode apart, each way round', async () => {
    const path = join(dir, 'modes.db');
    const delivery = (id: string) => ({
      id,
      url: 'https://a.example/hook',
      origin: 'https://a.example',
      authKey: undefined,
      signingSecret: undefined,
      body: bodyFor(id),
      createdAt: 1,
    });
    const owner = sqliteDeliveryStore({ path });
    await owner.insert(delivery('o1'));
    const shared = sqliteDeliveryStore({ path, mode: 'shared' });
    await expect(shared.insert(delivery('s1'))).rejects.toMatchObject({
      code: 'store_locked',
      message: expect.stringContaining("Processes that share one file must all use { mode: 'shared' }"),
    });
    await owner.close();
    await shared.insert(delivery('s1'));
    const another = sqliteDeliveryStore({ path, mode: 'shared' });
    await another.insert(delivery('s2'));
    const late = sqliteDeliveryStore({ path });
    await expect(late.acquireOwnership?.()).rejects.toMatchObject({
      code: 'store_locked',
      message: expect.stringContaining("used by processes opened with { mode: 'shared' }"),
    });
    for (const store of [shared, another, late]) await store.close();
  });

  it('finds the owner of a file reached through a symbolic link', async () => {
    const path = join(dir, 'linked.db');
    const owner = sqliteDeliveryStore({ path });
    await owner.acquireOwnership?.();
    symlinkSync(path, join(dir, 'alias.db'));
    const throughLink = sqliteDeliveryStore({ path: join(dir, 'alias.db') });
    await expect(throughLink.acquireOwnership?.()).rejects.toMatchObject({ code: 'store_locked' });
    await throughLink.close();
    await owner.close();
  });
});
