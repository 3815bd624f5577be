import type { Statement } from 'better-sqlite3';
import { BODY_BYTES, type ClaimWithBytes } from '../body-bytes.js';
import type { SqliteFile } from './open-sqlite.js';
import type { Reservation } from './reservations.js';

/** The row of a due delivery, as a claim reads it. */
export interface DueRow {
  readonly rid: number;
  readonly id: string;
  readonly url: string;
  readonly origin: string;
  readonly auth_key: string | null;
  readonly signing_secret: string | null;
  /** The body's UTF-8 bytes (read as a BLOB: no string is made for it). */
  readonly body: Uint8Array;
  readonly attempts: number;
  readonly round_attempts: number;
  readonly round: number;
  readonly lost_leases: number;
  readonly next_attempt_at: number;
  readonly created_at: number;
  readonly session_id: string | null;
  readonly company_id: string | null;
  readonly trace_parent: string | null;
}

const DUE_COLUMNS = `rowid AS rid, id, url, origin, sealed_auth_key AS auth_key, sealed_signing_secret AS signing_secret, CAST(body AS BLOB) AS body, attempts, round_attempts, round,
  lost_leases, next_attempt_at, created_at, session_id, company_id, trace_parent`;

const orUndefined = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

/** Where the next read of an origin's rows starts: after this key, or from the start (`undefined`). */
export type ReadCursor = readonly [dueAt: number, rid: number] | undefined;

/**
 * The owner's reads of due work, one origin at a time on the index `(origin, next_attempt_at)` of
 * pending rows: a read walks only the origin it is for, so one origin's backlog costs the others
 * nothing, however deep it is.
 */
export interface OriginReads {
  /** Up to `limit` rows of `origin` due by `now`, in due order, after `cursor`. */
  due(origin: string, now: number, cursor: ReadCursor, limit: number): DueRow[];
  /** When the first pending row of `origin` after `cursor` is due (due or not), if there is one. */
  nextAfter(origin: string, cursor: ReadCursor): number | undefined;
  /** Every origin with a pending delivery and its earliest due time: one index probe per origin. */
  heads(): [origin: string, dueAt: number][];
}

export function originReads({ db, t }: SqliteFile): OriginReads {
  const reads = new Map<number, { readonly after: Statement; readonly fromStart: Statement }>();
  // The limit is written into the SQL, one statement per value: a bound `LIMIT ?` makes SQLite
  // prepare the statement again at every run (the planner uses the value), and better-sqlite3
  // then compiles a new row function too (a few thousand instructions per delivery). For the
  // same reason the origin is `+@origin`: a bare parameter in `origin = @origin` beside the ORDER
  // BY made SQLite prepare every read again (seen as one row function compiled per read); the
  // unary plus leaves the plan as it is (the index, origin = ?).
  const readsFor = (limit: number) => {
    let read = reads.get(limit);
    if (read === undefined) {
      if (reads.size >= MAX_LIMITS_PREPARED) reads.clear();
      const from = `SELECT ${DUE_COLUMNS} FROM ${t.deliveries}
                     WHERE state = 'pending' AND origin = +@origin AND next_attempt_at <= @now`;
      read = {
        after: db.prepare(
          `${from} AND (next_attempt_at, rowid) > (@dueAt, @rid) ORDER BY next_attempt_at, rowid LIMIT ${limit}`,
        ),
        fromStart: db.prepare(`${from} ORDER BY next_attempt_at, rowid LIMIT ${limit}`),
      };
      reads.set(limit, read);
    }
    return read;
  };
  const nextAfter = db
    .prepare(
      `SELECT next_attempt_at FROM ${t.deliveries}
        WHERE state = 'pending' AND origin = +@origin AND (next_attempt_at, rowid) > (@dueAt, @rid)
        ORDER BY next_attempt_at, rowid LIMIT 1`,
    )
    .pluck();
  const nextFromStart = db
    .prepare(
      `SELECT next_attempt_at FROM ${t.deliveries} WHERE state = 'pending' AND origin = +@origin
        ORDER BY next_attempt_at, rowid LIMIT 1`,
    )
    .pluck();
  // A loose index scan: each step seeks the next origin in the index, never walking a backlog.
  const heads = db.prepare(
    `WITH RECURSIVE o(origin) AS (
       SELECT (SELECT origin FROM ${t.deliveries} WHERE state = 'pending' ORDER BY origin LIMIT 1)
       UNION ALL
       SELECT (SELECT origin FROM ${t.deliveries} WHERE state = 'pending' AND origin > o.origin ORDER BY origin LIMIT 1)
         FROM o WHERE o.origin IS NOT NULL)
     SELECT origin, (SELECT min(next_attempt_at) FROM ${t.deliveries} d WHERE d.state = 'pending' AND d.origin = o.origin) AS due
       FROM o WHERE origin IS NOT NULL`,
  );
  return {
    due(origin, now, cursor, limit) {
      // A bounded integer, however the request was made: it is written into SQL.
      const read = readsFor(Math.min(MAX_READ, Math.max(1, Math.floor(limit))));
      return (
        cursor === undefined
          ? read.fromStart.all({ origin, now })
          : read.after.all({ origin, now, dueAt: cursor[0], rid: cursor[1] })
      ) as DueRow[];
    },
    nextAfter(origin, cursor) {
      const at =
        cursor === undefined
          ? nextFromStart.get({ origin })
          : nextAfter.get({ origin, dueAt: cursor[0], rid: cursor[1] });
      return at === undefined || at === null ? undefined : Number(at);
    },
    heads: () => (heads.all() as { origin: string; due: number }[]).map((row) => [row.origin, Number(row.due)]),
  };
}

/** Distinct read limits kept prepared. */
const MAX_LIMITS_PREPARED = 8;
/** The most due rows one read takes into memory. */
const MAX_READ = 1024;

const decoder = new TextDecoder();

/**
 * The claim the engine gets for a due row taken under `reservation`. Its body stays the bytes
 * read until something asks for the string (the engine sends and signs the bytes).
 */
class StoredClaim implements ClaimWithBytes {
  readonly id: string;
  readonly url: string;
  readonly origin: string;
  readonly authKey: string | undefined;
  readonly signingSecret: string | undefined;
  readonly [BODY_BYTES]: Uint8Array;
  readonly attempts: number;
  readonly roundAttempts: number;
  readonly round: number;
  readonly lostLeases: number;
  readonly token: number;
  readonly dueAt: number;
  readonly createdAt: number;
  readonly sessionId: string | undefined;
  readonly companyId: string | undefined;
  readonly traceParent: string | undefined;
  #body: string | undefined;

  constructor(row: DueRow, reservation: Reservation) {
    this.id = row.id;
    this.url = row.url;
    this.origin = row.origin;
    this.authKey = orUndefined(row.auth_key);
    this.signingSecret = orUndefined(row.signing_secret);
    this[BODY_BYTES] = row.body;
    this.attempts = row.attempts;
    this.roundAttempts = row.round_attempts;
    this.round = row.round;
    this.lostLeases = reservation.lostLeases;
    this.token = reservation.token;
    this.dueAt = row.next_attempt_at;
    this.createdAt = row.created_at;
    this.sessionId = orUndefined(row.session_id);
    this.companyId = orUndefined(row.company_id);
    this.traceParent = orUndefined(row.trace_parent);
  }

  get body(): string {
    this.#body ??= decoder.decode(this[BODY_BYTES]);
    return this.#body;
  }
}

export function claimOf(row: DueRow, reservation: Reservation): ClaimWithBytes {
  return new StoredClaim(row, reservation);
}
