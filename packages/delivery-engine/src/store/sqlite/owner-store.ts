import { DeliveryEngineError } from '../../delivery-engine-error.js';
import { ATTEMPT_COLUMNS, attemptValues, toQueueStats } from '../rows.js';
import type { StoreHealth } from '../store.js';
import { CommitQueue } from './commit-queue.js';
import { prepareCommon } from './common-statements.js';
import type { SqliteStore } from './deferred-store.js';
import { originReads } from './due-reads.js';
import { inFlightRecord } from './in-flight-record.js';
import type { SqliteFile } from './open-sqlite.js';
import { OriginQueues } from './origin-queues.js';
import { ownerClaims } from './owner-claims.js';
import { Reservations } from './reservations.js';
import { refuseTransaction, runSync, wrapSqliteError } from './run-sync.js';
import type { SqliteSealing } from './sqlite-sealing.js';
import { isLockContention, isStoreOutage } from './store-outage.js';
import { ownership } from './take-over.js';
import type { WalSync } from './wal-sync.js';

type Row = Record<string, unknown>;

/**
 * How long an attempt's result may wait for others to share its commit. Its HTTP slot is free
 * already, so the wait costs no throughput; it makes commits of ~40 results instead of ~8 under
 * load (measured: 20 % less CPU per delivery), and an idle engine records a result 2 ms later.
 */
const RESULT_COMMIT_WAIT_MS = 2;

/**
 * The only mode: this process owns the file (a lock says so and refuses a second writer), so a
 * claim is a reservation in memory, written to the file as the list of attempts in flight in a
 * group commit before any of them is sent; the result of an attempt is its only other write,
 * group-committed with the other results and enqueues. Every commit first checks that this
 * process is still the owner (its generation, its lock file), so a replaced owner writes nothing
 * as owner; it may still record the results of attempts it had in flight, which the successor
 * holds back for one lease. After a crash the next owner sends again what had no result, and the
 * attempt log counts each such send.
 */
export function ownerSqliteStore(file: SqliteFile, sync: WalSync | undefined, sealing: SqliteSealing): SqliteStore {
  const { db, t } = file;
  const common = prepareCommon(file);
  const reservations = new Reservations();
  const origins = new OriginQueues(originReads(file), (id) => reservations.isHeld(id));
  // `attempts = ?`: the result of a claim lands only if no other result was recorded since it
  // was taken (a fenced-off predecessor's, finishing an attempt this owner held back).
  const recordResult = db.prepare(
    `UPDATE ${t.deliveries}
        SET state = ?, attempts = attempts + 1, round_attempts = round_attempts + 1, next_attempt_at = ?,
            finished_at = ?, lost_leases = 0, last_outcome = ?, last_status = ?
      WHERE id = ? AND state = 'pending' AND attempts = ?`,
  );
  const insertAttempt = db.prepare(
    `INSERT INTO ${t.attempts} (${ATTEMPT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const stats = db.prepare(
    `SELECT count(*) FILTER (WHERE next_attempt_at <= @now) AS due,
            count(*) FILTER (WHERE next_attempt_at > @now) AS waiting_retry,
            min(next_attempt_at) FILTER (WHERE next_attempt_at <= @now) AS oldest_due_at
       FROM ${t.deliveries}
      WHERE state = 'pending' AND id NOT IN (SELECT value FROM json_each(@held))`,
  );
  const owner = ownership(file, (inherited) => reservations.inherit(inherited));
  /** Set once a commit found another owner: from then on only held results are written. */
  let fenced: DeliveryEngineError | undefined;
  /** Set once an fsync failed: the kernel may have dropped the pages, so nothing written since is trusted. */
  let broken: DeliveryEngineError | undefined;
  /** Engine time minus monotonic time at the last claim, to tell when an inherited hold ends. */
  let clockOffset = 0;

  const commits: CommitQueue = new CommitQueue({
    transaction: (body) => db.transaction(body).immediate(),
    beforeWrites: () => {
      if (fenced !== undefined) return;
      try {
        owner.checkFence();
      } catch (error) {
        fenced = error as DeliveryEngineError;
        throw error;
      }
      record.writeIfChanged();
    },
    ...(sync !== undefined && {
      sync: () =>
        sync().catch((error: unknown) => {
          broken ??= new DeliveryEngineError(
            'store_error',
            `sqliteDeliveryStore: an fsync of ${file.path}-wal failed, so the kernel may have dropped what was written; this engine stops writing. Restart the process once the disk is healthy: deliveries without a durable result are sent again, and the attempt log counts them. An event whose enqueue failed with this error may be stored all the same: enqueue it again with the same id (enqueue is idempotent by id), never under a new one`,
            { cause: error },
          );
          throw broken;
        }),
    }),
    wrapError: (error) => wrapSqliteError('write', error),
    waitMs: RESULT_COMMIT_WAIT_MS,
    isOutage: (error) => error === fenced || isStoreOutage(error),
    isContention: isLockContention,
  });
  const record = inFlightRecord(db, t, reservations, {
    owned: () => owner.lock.held,
    commitSoon: () => commits.schedule(),
  });
  const claims = ownerClaims({ reservations, origins, commits });
  const { runway } = claims;

  const owned = <T>(what: string, write: () => Promise<T>): Promise<T> => {
    const refusal = broken ?? fenced;
    if (refusal !== undefined) return Promise.reject(refusal);
    try {
      owner.lock.acquire();
      // The keys are checked, and what an older release stored in clear is sealed, before the first write.
      sealing.ready();
    } catch (error) {
      return Promise.reject(wrapSqliteError(what, error));
    }
    return write();
  };

  return {
    migrate: () => runSync('migrate', file.migrate),
    acquireOwnership: () =>
      runSync('acquireOwnership', () => {
        owner.lock.acquire();
        sealing.ready();
      }),
    insert: (delivery, insertOptions) =>
      owned('insert', () => {
        refuseTransaction(insertOptions);
        // Sealed before the commit, so the write transaction holds no cipher work.
        const sealed = sealing.sealed(delivery);
        return commits.push(
          () => ({ created: common.insert(delivery, sealed) }),
          ({ created }) => created && origins.noteDue(delivery.origin, delivery.createdAt, true),
        );
      }),
    claim: (r) =>
      owned('claim', () => {
        // While the store cannot write, nothing new is sent: its result could only be held.
        const outage = commits.outage;
        if (outage !== undefined) return Promise.reject(outage.error);
        const elapsed = r.elapsed ?? r.now;
        clockOffset = r.now - elapsed;
        // An inherited hold that ended left its delivery behind its origin's read cursor.
        for (const origin of reservations.tick(elapsed, r.leaseMs)) origins.reopen(origin);
        return claims.claim(r);
      }),
    complete(claim, attempt, next) {
      const reservation = reservations.get(claim.id);
      if (reservation?.token !== claim.token) return Promise.resolve(false);
      const pending = next.state === 'pending';
      const result = [
        next.state,
        pending ? (next.nextAttemptAt ?? next.finishedAt) : null,
        pending ? null : next.finishedAt,
        attempt.outcome,
        attempt.status ?? null,
        claim.id,
        reservation.attempts,
      ];
      const logRow = attemptValues(claim.id, attempt);
      return commits.push(
        () => {
          if (!reservations.holds(claim.id, claim.token) || recordResult.run(...result).changes !== 1) return false;
          insertAttempt.run(...logRow);
          return true;
        },
        (recorded) => {
          if (reservations.end(claim.id, claim.token)) record.changed();
          if (recorded && pending) origins.noteDue(reservation.origin, result[1] as number);
        },
        // Held through an outage (a full disk): the answer arrived, and is recorded once the
        // store can write, never thrown away to be sent again.
        { canWait: true, hold: true },
      );
    },
    release(claim) {
      // Nothing was written at the claim but the in-flight list: the delivery is still due at
      // its old time in the file, behind the read cursor.
      const origin = reservations.get(claim.id)?.origin;
      const released = reservations.end(claim.id, claim.token);
      if (released && origin !== undefined) {
        origins.reopen(origin, claim.dueAt);
        record.changed();
      }
      return Promise.resolve(released);
    },
    nextDueAt: (exclude, lanes) =>
      runSync('nextDueAt', () => {
        const due = origins.nextDue(exclude, lanes);
        const holdEnd = reservations.nextHoldEnd(exclude);
        const heldUntil = holdEnd === undefined ? undefined : holdEnd + clockOffset;
        const times = [due, heldUntil, runway.nextDue(exclude, lanes)].filter((t) => t !== undefined);
        return times.length === 0 ? undefined : Math.min(...times);
      }),
    queueStats: (now) =>
      runSync('queueStats', () => {
        const row = stats.get({ now, held: JSON.stringify(reservations.ids()) }) as Row | undefined;
        const counted = toQueueStats(row);
        // The runway is due work not yet handed to the engine; the rest of the reservations are in flight.
        const runwayDue = runway.nextDue([]);
        return {
          ...counted,
          due: counted.due + runway.size,
          inFlight: reservations.running - runway.size + reservations.inheritedCount,
          oldestDueAt:
            runwayDue !== undefined && (counted.oldestDueAt === undefined || runwayDue < counted.oldestDueAt)
              ? runwayDue
              : counted.oldestDueAt,
        };
      }),
    health: (): StoreHealth => {
      const problem = broken ?? fenced ?? commits.outage?.error;
      return {
        writable: problem === undefined,
        fenced: fenced !== undefined,
        heldResults: commits.queued,
        ...(problem !== undefined && { problem: problem.message }),
      };
    },
    openCredentials: (claim) => sealing.open(claim),
    resealSecrets: () => owned('resealSecrets', () => sealing.reseal((write) => commits.push(write))),
    get: (id) => runSync('get', () => common.read(id)),
    list: (filter) => runSync('list', () => common.list(filter)),
    redeliver: (id, now) =>
      owned('redeliver', () =>
        commits
          .push(
            () => common.redeliver(id, now),
            // Due again under its old row id: possibly behind its origin's read cursor.
            ({ origin }) => origin !== undefined && origins.reopen(origin, now),
          )
          .then(({ result }) => result),
      ),
    async close() {
      if (!db.open) return;
      // The runway was never sent: it leaves the in-flight list, so a successor neither holds
      // nor counts it. Writes already queued (enqueues the caller awaits) go out too.
      claims.dropRunway();
      commits.schedule();
      await commits.drain();
      commits.abandon(
        new DeliveryEngineError('store_error', 'sqliteDeliveryStore: closed before this write could be made'),
      );
      record.close();
      await owner.release();
      sync?.close();
      db.close();
    },
  };
}
