import { type RoomRequest, takeWithRoom } from '../origin-room.js';

/** What the local queue needs of a due row: its origin and its place in the due order. */
export interface QueuedRow {
  readonly id: string;
  readonly origin: string;
  /** Due time, then the row id: the order of the due index, and the key of the read cursor. */
  readonly next_attempt_at: number;
  readonly rid: number;
}

/** Where the next read of due rows starts: after this key, or from the start (`undefined`). */
export type ReadCursor = readonly [dueAt: number, rid: number] | undefined;

/** Rows a queue holds at most that no claim could take (their origins are at their limit). */
const MAX_HELD = 256;

/**
 * Due rows read ahead of the engine's claims (graphile-worker's "local queue"): one read of a
 * batch in due order serves many claims, and each read starts where the last one ended, so it
 * never walks again over rows this process already holds. Rows of an origin at its limit wait
 * here, in order, until the origin has room.
 *
 * Only the owner writes the file, so a row read here stays due until this process acts on it.
 * The few ways a due row can fall behind the cursor (a reservation lapsed, a claim released, a
 * redelivery, a clock set back) call {@link reset}, and the next read starts from the beginning.
 */
export class LocalQueue<Row extends QueuedRow> {
  #rows: Row[] = [];
  #cursor: ReadCursor = undefined;

  /** The cursor the next read starts after. */
  get cursor(): ReadCursor {
    return this.#cursor;
  }

  get size(): number {
    return this.#rows.length;
  }

  /**
   * Appends rows read in due order. `continues`: the read covered every due row up to its last
   * one (a read after the cursor, or one from the start that skipped no origin), so the cursor
   * moves past them (past `lastRead`, when rows the caller already holds were left out); a read
   * that skipped origins at their limit leaves the cursor unset.
   */
  append(rows: readonly Row[], continues: boolean, lastRead: QueuedRow | undefined = rows.at(-1)): void {
    for (const row of rows) this.#rows.push(row);
    if (continues && lastRead !== undefined) this.#cursor = [lastRead.next_attempt_at, lastRead.rid];
  }

  /** Ids of the queued rows (a read from the start skips them). */
  ids(): string[] {
    return this.#rows.map((row) => row.id);
  }

  /**
   * Takes, in due order, up to `request.limit` rows whose origin is not excluded and has room:
   * `maxPerOrigin` less `busyOrigins` less the rows in `alreadyTaken`. The others stay queued.
   */
  take(request: RoomRequest, alreadyTaken: readonly Row[] = []): Row[] {
    if (this.#rows.length === 0 || request.limit - alreadyTaken.length <= 0) return [];
    const { taken, kept } = takeWithRoom(this.#rows, request, (row) => row.origin, {
      alreadyTaken: alreadyTaken.map((row) => row.origin),
    });
    this.#rows = kept;
    // Rows no claim can take must not pile up: let them go (they stay due in the file) and read
    // from the start again, skipping their origins while those are at their limit.
    if (kept.length > MAX_HELD) this.reset();
    return taken;
  }

  /** Forgets the queued rows (they stay due in the file) and starts the next read from the beginning. */
  reset(): void {
    this.#rows = [];
    this.#cursor = undefined;
  }
}
