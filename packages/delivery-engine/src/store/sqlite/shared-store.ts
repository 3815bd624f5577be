import { ATTEMPT_COLUMNS, attemptValues, CLAIM_COLUMNS, toClaim, toQueueStats } from '../rows.js';
import type { ClaimRequest, DeliveryStore } from '../store.js';
import { withinOriginRoom } from '../within-origin-room.js';
import { CommitQueue } from './commit-queue.js';
import { prepareCommon } from './common-statements.js';
import type { FileLock } from './file-lock.js';
import type { SqliteFile } from './open-sqlite.js';
import { refuseTransaction, runSync, wrapSqliteError } from './run-sync.js';

type Row = Record<string, unknown>;

/** Queue counts at `now` (one scan of the pending rows, through the partial due index; a lease here
 * is `next_attempt_at` moved to the lease's end). */
function queueStatsSql(deliveries: string, now: string): string {
  return `SELECT
      count(*) FILTER (WHERE next_attempt_at <= ${now}) AS due,
      count(*) FILTER (WHERE leased = 0 AND next_attempt_at > ${now}) AS waiting_retry,
      count(*) FILTER (WHERE leased = 1 AND next_attempt_at > ${now}) AS in_flight,
      min(next_attempt_at) FILTER (WHERE next_attempt_at <= ${now}) AS oldest_due_at
    FROM ${deliveries} WHERE state = 'pending'`;
}

/**
 * The mode for several processes on one host sharing one file: every claim is a durable lease
 * (`BEGIN IMMEDIATE` with `UPDATE … RETURNING`, a fencing token per claim), so a process that
 * dies mid-attempt leaves a delivery that is due again when its lease ends. Each claim and each
 * group of results is its own write transaction: this mode costs about twice the writes of the
 * owner mode, which is why it is not the default.
 */
export function sharedSqliteStore(file: SqliteFile, lock: FileLock): DeliveryStore<never> {
  const { db, t } = file;
  const common = prepareCommon(file);
  const dueCandidates = db.prepare(
    `SELECT id, origin FROM ${t.deliveries}
      WHERE state = 'pending' AND next_attempt_at <= ? AND origin NOT IN (SELECT value FROM json_each(?))
      ORDER BY next_attempt_at LIMIT ?`,
  );
  const lease = db.prepare(
    `UPDATE ${t.deliveries}
        SET lost_leases = lost_leases + leased, leased = 1, lease_token = lease_token + 1,
            due_at = next_attempt_at, next_attempt_at = ?
      WHERE id IN (SELECT value FROM json_each(?))
      RETURNING ${CLAIM_COLUMNS}`,
  );
  const complete = db.prepare(
    `UPDATE ${t.deliveries}
        SET state = @state, attempts = attempts + 1, round_attempts = round_attempts + 1,
            next_attempt_at = @next, finished_at = @finished, leased = 0, lost_leases = 0,
            last_outcome = @outcome, last_status = @status
      WHERE id = @id AND lease_token = @token AND leased = 1 AND state = 'pending'`,
  );
  const insertAttempt = db.prepare(
    `INSERT INTO ${t.attempts} (${ATTEMPT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const release = db.prepare(
    `UPDATE ${t.deliveries} SET leased = 0, next_attempt_at = @dueAt
      WHERE id = @id AND lease_token = @token AND leased = 1 AND state = 'pending'`,
  );
  const nextDue = db.prepare(
    `SELECT next_attempt_at FROM ${t.deliveries}
      WHERE state = 'pending' AND origin NOT IN (SELECT value FROM json_each(?))
      ORDER BY next_attempt_at LIMIT 1`,
  );
  const stats = db.prepare(queueStatsSql(t.deliveries, '@now'));

  // One BEGIN IMMEDIATE: the rows read are still due and unleased when they are leased.
  const claimTx = db.transaction((r: ClaimRequest): Row[] => {
    const candidates = dueCandidates.all(r.now, JSON.stringify(r.excludeOrigins), r.limit) as {
      id: string;
      origin: string;
    }[];
    const ids = withinOriginRoom(candidates, r).map((candidate) => candidate.id);
    return ids.length === 0 ? [] : (lease.all(r.now + r.leaseMs, JSON.stringify(ids)) as Row[]);
  });
  // Results of one turn commit together, the same group commit as the owner mode's (fenced per
  // row by its token); a batch that fails is retried row by row, so one bad row fails alone.
  const results = new CommitQueue({
    transaction: (body) => db.transaction(body).immediate(),
    wrapError: (error) => wrapSqliteError('complete', error),
  });
  const redeliverTx = db.transaction(common.redeliver);
  // Every write first takes the file's shared lock, which an owner-mode process would refuse.
  const writing = <T>(fn: () => T) => {
    lock.acquire();
    return fn();
  };

  return {
    migrate: () => runSync('migrate', file.migrate),
    acquireOwnership: () => runSync('acquireOwnership', () => lock.acquire()),
    insert: (d, insertOptions) =>
      runSync('insert', () => {
        refuseTransaction(insertOptions);
        return writing(() => ({ created: common.insert(d) }));
      }),
    claim: (r) =>
      runSync('claim', () =>
        writing(() =>
          claimTx
            .immediate(r)
            .map(toClaim)
            // RETURNING keeps no order; the engine starts the oldest due first.
            .sort((a, b) => a.dueAt - b.dueAt),
        ),
      ),
    complete: (c, attempt, next) => {
      const params = {
        id: c.id,
        token: c.token,
        state: next.state,
        next: next.state === 'pending' ? (next.nextAttemptAt ?? next.finishedAt) : null,
        finished: next.state === 'pending' ? null : next.finishedAt,
        outcome: attempt.outcome,
        status: attempt.status ?? null,
      };
      const logRow = attemptValues(c.id, attempt);
      return results.push(() => {
        if (complete.run(params).changes !== 1) return false;
        insertAttempt.run(...logRow);
        return true;
      });
    },
    release: (c) =>
      runSync('release', () => writing(() => release.run({ id: c.id, token: c.token, dueAt: c.dueAt }).changes === 1)),
    nextDueAt: (exclude) =>
      runSync('nextDueAt', () => {
        const row = nextDue.get(JSON.stringify(exclude)) as Row | undefined;
        return row === undefined ? undefined : Number(row.next_attempt_at);
      }),
    queueStats: (now) => runSync('queueStats', () => toQueueStats(stats.get({ now }) as Row | undefined)),
    get: (id) => runSync('get', () => common.read(id)),
    list: (filter) => runSync('list', () => common.list(filter)),
    redeliver: (id, now) => runSync('redeliver', () => writing(() => redeliverTx.immediate(id, now))),
    async close() {
      if (!db.open) return;
      await results.drain();
      lock.release();
      db.close();
    },
  };
}
