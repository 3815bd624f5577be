import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONTENTION_BUDGET_MS, CommitQueue, FULL_BATCH } from './commit-queue.js';
import { isLockContention, isStoreOutage } from './store-outage.js';

let db: Database.Database;
let commits: number;
beforeEach(() => {
  db = new Database(':memory:');
  db.exec('CREATE TABLE t (v INTEGER NOT NULL)');
  commits = 0;
});
afterEach(() => db.close());

const queueOver = (waitMs = 0) =>
  new CommitQueue({
    transaction: (body) => {
      commits++;
      return db.transaction(body).immediate();
    },
    wrapError: (error) => new Error(`wrapped: ${(error as Error).message}`),
    waitMs,
  });
describe('CommitQueue', () => {
  it('commits the writes of one turn together and settles each with its own result', async () => {
    const queue = queueOver();
    const add = db.prepare('INSERT INTO t (v) VALUES (?)');
    const results = await Promise.all([1, 2, 3].map((v) => queue.push(() => add.run(v).changes)));
    expect(results).toEqual([1, 1, 1]);
    expect(commits).toBe(1);
  });

  it('fails only the write that throws, after the batch fails as a whole', async () => {
    const queue = queueOver();
    const add = db.prepare('INSERT INTO t (v) VALUES (?)');
    const settled = await Promise.allSettled([1, null, 3].map((v) => queue.push(() => add.run(v).changes)));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((settled[1] as PromiseRejectedResult).reason)).toMatch(/wrapped: NOT NULL/);
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 2 });
  });

  it('lets writes that can wait share a later commit, and a write that cannot takes them along', async () => {
    const queue = queueOver(50);
    const add = db.prepare('INSERT INTO t (v) VALUES (?)');
    const waiting = [1, 2].map((v) => queue.push(() => add.run(v).changes, undefined, { canWait: true }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(commits).toBe(0);
    await Promise.all([...waiting, queue.push(() => add.run(3).changes)]);
    expect(commits).toBe(1);
    const alone = queue.push(() => add.run(4).changes, undefined, { canWait: true });
    const started = performance.now();
    await alone;
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(commits).toBe(2);
  });

  it('commits a full batch at the next turn without waiting', async () => {
    const queue = queueOver(60_000);
    const add = db.prepare('INSERT INTO t (v) VALUES (?)');
    await Promise.all(
      Array.from({ length: FULL_BATCH }, (_, v) => queue.push(() => add.run(v).changes, undefined, { canWait: true })),
    );
    expect(commits).toBe(1);
  });

  it('runs the committed callback before the promise settles, and drains on demand', async () => {
    const queue = queueOver(60_000);
    const add = db.prepare('INSERT INTO t (v) VALUES (?)');
    const seen: string[] = [];
    const pending = queue
      .push(
        () => add.run(1).changes,
        () => seen.push('committed'),
        { canWait: true },
      )
      .then(() => seen.push('resolved'));
    await queue.drain();
    await pending;
    expect(seen).toEqual(['committed', 'resolved']);
  });

  it('resolves only after the sync that follows its commit', async () => {
    let syncs = 0;
    let release: () => void = () => undefined;
    const queue = new CommitQueue({
      transaction: (body) => db.transaction(body).immediate(),
      wrapError: (error) => error as Error,
      sync: () =>
        new Promise<void>((resolve) => {
          syncs++;
          release = resolve;
        }),
    });
    let resolved = false;
    const write = queue
      .push(() => 1)
      .then(() => {
        resolved = true;
      });
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect([syncs, resolved]).toEqual([1, false]);
    release();
    await write;
    expect(resolved).toBe(true);
  });

  it('holds writes through a full database and commits them once it has room, failing the others at once', async () => {
    // A real SQLITE_FULL: the database may not grow past its current pages.
    db.exec('CREATE TABLE big (b BLOB)');
    const pages = Number(db.pragma('page_count', { simple: true }));
    db.pragma(`max_page_count = ${pages}`);
    let failedBatches = 0;
    const queue = new CommitQueue({
      transaction: (body) => {
        commits++;
        try {
          return db.transaction(body).immediate();
        } catch (error) {
          failedBatches++;
          throw error;
        }
      },
      wrapError: (error) => new Error(`wrapped: ${(error as Error).message}`),
      isOutage: (error) => (error as { code?: string }).code === 'SQLITE_FULL',
    });
    const grow = db.prepare('INSERT INTO big (b) VALUES (zeroblob(65536))');
    const held = queue.push(() => grow.run().changes, undefined, { hold: true });
    const refused = queue.push(() => grow.run().changes);
    await expect(refused).rejects.toThrow(/wrapped: database or disk is full/);
    // One failed transaction for the batch, not one more per write in it.
    expect(failedBatches).toBe(1);
    expect(queue.outage?.error.message).toMatch(/full/);
    expect(queue.queued).toBe(1);
    db.pragma(`max_page_count = ${pages * 100}`);
    await expect(held).resolves.toBe(1);
    expect(queue.outage).toBeUndefined();
    expect(db.prepare('SELECT count(*) AS n FROM big').get()).toEqual({ n: 1 });
  });

  it('fails held writes when abandoned (the store closes while it still cannot write)', async () => {
    const queue = new CommitQueue({
      transaction: () => {
        throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
      },
      wrapError: (error) => error as Error,
      isOutage: () => true,
    });
    const held = queue.push(() => 1, undefined, { hold: true });
    await new Promise((resolve) => setImmediate(resolve));
    expect(queue.queued).toBe(1);
    queue.abandon(new Error('closed'));
    await expect(held).rejects.toThrow('closed');
    expect(queue.queued).toBe(0);
  });

  describe('while another connection holds the write lock', () => {
    let dir: string;
    let own: Database.Database;
    let other: Database.Database;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'kyc-commit-queue-'));
      own = new Database(join(dir, 'q.db'), { timeout: 0 });
      own.pragma('journal_mode = WAL');
      own.exec('CREATE TABLE t (v INTEGER NOT NULL)');
      other = new Database(join(dir, 'q.db'), { timeout: 0 });
      other.exec('BEGIN IMMEDIATE');
    });
    afterEach(() => {
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
      own.close();
      rmSync(dir, { recursive: true, force: true });
    });
    // SQLite answers BUSY at once here (timeout 0), as it did to the owner around a checkpoint.
    const contended = () =>
      new CommitQueue({
        transaction: (body) => own.transaction(body).immediate(),
        wrapError: (error) => new Error(`wrapped: ${(error as Error).message}`),
        isOutage: isStoreOutage,
        isContention: isLockContention,
      });

    it('tries a batch again while the lock is held for a moment, failing nothing and showing no outage', async () => {
      const queue = contended();
      const add = own.prepare('INSERT INTO t (v) VALUES (?)');
      const write = queue.push(() => add.run(1).changes);
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(queue.outage).toBeUndefined();
      expect(queue.queued).toBe(1);
      other.exec('COMMIT');
      await expect(write).resolves.toBe(1);
      expect(own.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 1 });
    });

    it('stops trying a contended batch once abandoned: no transaction runs on the closed file', async () => {
      let transactions = 0;
      const queue = new CommitQueue({
        transaction: (body) => {
          transactions++;
          return own.transaction(body).immediate();
        },
        wrapError: (error) => error as Error,
        isOutage: isStoreOutage,
        isContention: isLockContention,
      });
      const add = own.prepare('INSERT INTO t (v) VALUES (?)');
      const write = queue.push(() => add.run(1).changes);
      await new Promise((resolve) => setTimeout(resolve, 20));
      queue.abandon(new Error('closed'));
      await expect(write).rejects.toThrow('closed');
      const before = transactions;
      other.exec('COMMIT');
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(transactions).toBe(before);
    });

    it('counts a lock held past the budget as an outage: other writes fail, held ones wait', async () => {
      const queue = contended();
      const add = own.prepare('INSERT INTO t (v) VALUES (?)');
      const started = performance.now();
      const held = queue.push(() => add.run(1).changes, undefined, { hold: true });
      const refused = queue.push(() => add.run(2).changes);
      await expect(refused).rejects.toThrow(/wrapped: database is locked/);
      expect(performance.now() - started).toBeGreaterThanOrEqual(CONTENTION_BUDGET_MS);
      expect(queue.outage?.error.message).toMatch(/locked/);
      other.exec('COMMIT');
      await expect(held).resolves.toBe(1);
      expect(queue.outage).toBeUndefined();
    });
  });
});
