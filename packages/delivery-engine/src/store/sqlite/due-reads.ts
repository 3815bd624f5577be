import type { Statement } from 'better-sqlite3';
import { BODY_BYTES, type ClaimWithBytes } from '../body-bytes.js';
import type { ClaimRequest } from '../store.js';
import type { LocalQueue } from './local-queue.js';
import type { SqliteFile } from './open-sqlite.js';
import type { Reservation, Reservations } from './reservations.js';

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

/** Due rows read at once into the local queue: one read serves several claims. */
const READ_BATCH = 64;
/** Distinct read limits kept prepared (a limit above READ_BATCH comes from a concurrency above it). */
const MAX_LIMITS_PREPARED = 8;
/** The most due rows one read takes into memory. */
const MAX_READ = 10_000;
const DUE_COLUMNS = `rowid AS rid, id, url, origin, sealed_auth_key AS auth_key, sealed_signing_secret AS signing_secret, CAST(body AS BLOB) AS body, attempts, round_attempts, round,
  lost_leases, next_attempt_at, created_at, session_id, company_id, trace_parent`;

const orUndefined = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

/**
 * Fills the owner's local queue with the next due rows: after its cursor when it has one (no
 * row this process holds is walked again), else from the start, skipping what it holds and the
 * origins at their limit.
 */
export function dueReader(
  { db, t }: SqliteFile,
  reservations: Reservations,
  queue: LocalQueue<DueRow>,
): (request: ClaimRequest) => void {
  const reads = new Map<number, { readonly after: Statement; readonly fromStart: Statement }>();
  // The limit is written into the SQL, one statement per value: a bound `LIMIT ?` makes SQLite
  // prepare the statement again at every run (the planner uses the value), and better-sqlite3
  // then compiles a new row function too (a few thousand instructions per delivery).
  const readsFor = (limit: number) => {
    let read = reads.get(limit);
    if (read === undefined) {
      if (reads.size >= MAX_LIMITS_PREPARED) reads.clear();
      read = {
        after: db.prepare(
          `SELECT ${DUE_COLUMNS} FROM ${t.deliveries}
            WHERE state = 'pending' AND next_attempt_at <= @now AND (next_attempt_at, rowid) > (@dueAt, @rid)
            ORDER BY next_attempt_at, rowid LIMIT ${limit}`,
        ),
        fromStart: db.prepare(
          `SELECT ${DUE_COLUMNS} FROM ${t.deliveries}
            WHERE state = 'pending' AND next_attempt_at <= @now
              AND origin NOT IN (SELECT value FROM json_each(@excluded)) AND id NOT IN (SELECT value FROM json_each(@skipped))
            ORDER BY next_attempt_at, rowid LIMIT ${limit}`,
        ),
      };
      reads.set(limit, read);
    }
    return read;
  };
  return (r) => {
    const cursor = queue.cursor;
    // A bounded integer, however the request was made: it is written into SQL.
    const wanted = Number.isFinite(r.limit) ? Math.floor(r.limit) : READ_BATCH;
    const read = readsFor(Math.min(MAX_READ, Math.max(READ_BATCH, wanted)));
    if (cursor !== undefined) {
      const rows = read.after.all({ now: r.now, dueAt: cursor[0], rid: cursor[1] }) as DueRow[];
      // A read from the start skipped reserved rows it then set the cursor before: skip them again.
      queue.append(
        rows.filter((row) => !reservations.isHeld(row.id)),
        true,
        rows.at(-1),
      );
      return;
    }
    const skipped = [...reservations.ids(), ...queue.ids()];
    const rows = read.fromStart.all({
      now: r.now,
      excluded: JSON.stringify(r.excludeOrigins),
      skipped: JSON.stringify(skipped),
    }) as DueRow[];
    queue.append(rows, r.excludeOrigins.length === 0);
  };
}

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
