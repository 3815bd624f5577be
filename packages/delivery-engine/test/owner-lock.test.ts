import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createDeliveryEngine, DeliveryEngineError, sqliteDeliveryStore } from '../src/index.js';
import { bodyFor, pause } from './support/attempts.js';
import { type Answer, loopbackOptions, startReceiver, testCertificate } from './support/receiver.js';
import { spawnWorker, type Worker } from './support/spawn-worker.js';

const dir = mkdtempSync(join(tmpdir(), 'kyc-owner-lock-'));
const copies: string[] = [];
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  for (const copy of copies) rmSync(copy, { recursive: true, force: true });
});

/** Another copy of the engine package in this process, as a second `node_modules` tree gives. */
async function secondCopy(): Promise<typeof sqliteDeliveryStore> {
  // From the workspace's sources vitest loads the package itself: a fresh registry is a new copy.
  vi.resetModules();
  const fresh = (await import('../src/index.js')).sqliteDeliveryStore;
  if (fresh !== sqliteDeliveryStore) return fresh;
  // An installed package is loaded by Node, one instance whatever vitest resets: copy it beside
  // itself under another name, where its own dependencies still resolve.
  const root = dirname(createRequire(import.meta.url).resolve('@kyc/delivery-engine/package.json'));
  const name = `delivery-engine-copy-${process.pid}`;
  const copy = join(dirname(root), name);
  cpSync(root, copy, { recursive: true });
  copies.push(copy);
  return ((await import(/* @vite-ignore */ `@kyc/${name}`)) as { sqliteDeliveryStore: typeof sqliteDeliveryStore })
    .sqliteDeliveryStore;
}

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
        /stop the other engine .* or give this engine its own file\. Several processes belong on Postgres/,
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
    // The successor holds the dead owner's attempts in flight for one lease: a short one here.
    const successor = createDeliveryEngine({ store, ...(await loopbackOptions()), deadlineMs: 1000, leaseMs: 1500 });
    try {
      await successor.start();
      await receiver.waitFor(20 + inFlightAtKill.length);
      await successor.stop();
      for (const id of ids) {
        expect((await store.get(id))?.state, id).toBe('delivered');
        expect(receiver.counts.get(id), id).toBe(inFlightAtKill.includes(id) ? 2 : 1);
        // Each second send is explained in the attempt log: one earlier send without a result.
        // A row the owner had only reserved ahead (its runway) at the kill counts one possible
        // send too: the successor cannot tell it from a sent one.
        const [only] = (await store.get(id))?.attemptLog ?? [];
        if (inFlightAtKill.includes(id)) expect(only?.unrecordedSends, id).toBe(1);
        else expect(only?.unrecordedSends, id).toBeLessThanOrEqual(1);
      }
    } finally {
      await store.close();
      await receiver.close();
    }
  });

  it('refuses the retired shared mode with the way forward (Postgres)', () => {
    expect(() => sqliteDeliveryStore({ path: join(dir, 'modes.db'), mode: 'shared' } as never)).toThrow(
      expect.objectContaining({
        code: 'invalid_option',
        message: expect.stringContaining('run several workers on Postgres (postgresDeliveryStore'),
      }),
    );
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

  /** Sends `command` to a tampering owner and waits for its `<command> done`. */
  const tell = async (owner: Worker, command: string) => {
    const done = `${command.split(' ')[0]} done`;
    const before = owner.stdout().split(done).length;
    owner.child.stdin?.write(`${command}\n`);
    for (let waited = 0; owner.stdout().split(done).length === before; waited += 10) {
      if (waited > 10_000) throw new Error(`no "${done}": ${owner.stdout()}${owner.stderr()}`);
      await pause(10);
    }
  };

  it.each(['read', 'copy'] as const)(
    'stays the owner when its own process %s the lock file (its POSIX lock gone): a second engine is refused before it opens the database',
    { timeout: 60_000 },
    async (how) => {
      const folder = join(dir, how);
      mkdirSync(folder);
      const path = join(folder, 'tampered.db');
      const owner = spawnWorker({ path }, { script: 'tampering-owner', stdin: true });
      await owner.started;
      await tell(owner, 'enqueue before');
      const wal = statSync(`${path}-wal`);
      await tell(owner, how);

      const second = sqliteDeliveryStore({ path });
      await expect(second.acquireOwnership?.()).rejects.toMatchObject({
        code: 'store_locked',
        message: expect.stringContaining(`(process ${owner.child.pid} on ${hostname()}, since `),
      });
      await expect(createDeliveryEngine({ store: second, ...(await loopbackOptions()) }).start()).rejects.toMatchObject(
        {
          code: 'store_locked',
        },
      );
      await second.close();
      // Had the second handle opened the database, it would have found SQLite's own locks gone
      // with the copy, reset the shared memory under the owner and, closing as the last
      // connection, checkpointed and deleted the owner's write-ahead log.
      expect(statSync(`${path}-wal`).ino).toBe(wal.ino);

      await tell(owner, 'enqueue after');
      owner.child.stdin?.end('close\n');
      expect(await owner.exited).toBe(0);
      const reader = sqliteDeliveryStore({ path });
      expect((await reader.list()).length).toBe(2);
      await reader.close();
    },
  );

  it('writes its owner record, and its lock file, again at its next commit when they are deleted', {
    timeout: 60_000,
  }, async () => {
    const path = join(dir, 'deleted.db');
    const store = sqliteDeliveryStore({ path });
    const engine = createDeliveryEngine({ store, ...(await loopbackOptions()) });
    await engine.enqueue({ url: 'https://127.0.0.1:9/hook', body: bodyFor('deleted-1') });
    rmSync(`${path}-owner`);
    await engine.enqueue({ url: 'https://127.0.0.1:9/hook', body: bodyFor('deleted-0') });
    expect(JSON.parse(readFileSync(`${path}-owner`, 'utf8'))).toMatchObject({ pid: process.pid });
    rmSync(`${path}-lock`);
    rmSync(`${path}-owner`);
    await engine.enqueue({ url: 'https://127.0.0.1:9/hook', body: bodyFor('deleted-2') });
    expect(JSON.parse(readFileSync(`${path}-owner`, 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    const second = spawnWorker(await workerConfig(path));
    expect(await second.exited).toBe(3);
    expect(second.stdout()).toContain(`refused store_locked`);
    expect(store.health?.()).toMatchObject({ writable: true, fenced: false });
    await store.close();
  });

  it('respects an owner record naming a live process even without its lock, and ignores one whose pid was reused', async () => {
    const path = join(dir, 'recorded.db');
    const init = sqliteDeliveryStore({ path });
    await init.close();
    // pid 1 is alive on every Linux host; its start time tells it from an owner that reused its pid.
    const stat = readFileSync('/proc/1/stat', 'utf8');
    const started = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    const record = (start: string) =>
      writeFileSync(`${path}-owner`, JSON.stringify({ pid: 1, host: hostname(), started: start, since: Date.now() }));

    record(started ?? '');
    const refused = sqliteDeliveryStore({ path });
    await expect(refused.acquireOwnership?.()).rejects.toMatchObject({
      code: 'store_locked',
      message: expect.stringContaining(`(process 1 on ${hostname()}, since `),
    });
    await refused.close();
    // A reader in that state still reads; its engine's enqueue is refused like its start.
    const reader = sqliteDeliveryStore({ path });
    const readerEngine = createDeliveryEngine({ store: reader, ...(await loopbackOptions()) });
    expect(await readerEngine.listDeliveries()).toEqual([]);
    await expect(
      readerEngine.enqueue({ url: 'https://127.0.0.1:9/hook', body: bodyFor('recorded-1') }),
    ).rejects.toMatchObject({ code: 'store_locked' });
    await expect(readerEngine.start()).rejects.toMatchObject({ code: 'store_locked' });
    await reader.close();

    record(`${started}0`);
    const owner = sqliteDeliveryStore({ path });
    await owner.acquireOwnership?.();
    expect(JSON.parse(readFileSync(`${path}-owner`, 'utf8'))).toMatchObject({ pid: process.pid });
    await owner.close();
  });

  it('refuses another copy of the package in this process before it opens the file, reads included', async () => {
    const path = join(dir, 'copies.db');
    const owner = sqliteDeliveryStore({ path });
    await owner.acquireOwnership?.();
    const copyStore = await secondCopy();
    expect(copyStore).not.toBe(sqliteDeliveryStore);
    const other = copyStore({ path });
    const refusal = {
      code: 'store_locked',
      message: expect.stringContaining('another copy of @kyc/delivery-engine loaded in this process'),
    };
    await expect(other.acquireOwnership?.()).rejects.toMatchObject(refusal);
    // Its SQLite library would not see the owner's locks: not even a read opens the file.
    await expect(other.list()).rejects.toMatchObject(refusal);
    await other.close();
    await owner.close();
    // Once the owner has closed, the copy is an engine like any other.
    const successor = copyStore({ path });
    await successor.acquireOwnership?.();
    expect(await successor.list()).toEqual([]);
    await successor.close();
  });
});
