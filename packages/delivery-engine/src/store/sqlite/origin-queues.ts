import { laneOpen, OriginRoom, type RoomRequest, slowOriginsOf } from '../origin-room.js';
import type { LaneRoom } from '../store.js';
import type { DueRow, OriginReads, ReadCursor } from './due-reads.js';

/** Rows read ahead for origins that cannot take them kept at most in all; beyond it they are let go. */
const MAX_BUFFERED = 1024;
/** Rows one read of an origin takes at most. */
const MAX_PER_READ = 64;

/** One origin's rows read ahead of claims, where its next read starts, and when its next unread row is due. */
class OriginQueue {
  /** Read, not reserved, in due order. */
  rows: DueRow[] = [];
  cursor: ReadCursor = undefined;
  /** A lower bound of the due time of the first claimable row after `cursor` (`Infinity`: none). */
  unread: number;

  constructor(
    readonly origin: string,
    unread: number,
  ) {
    this.unread = unread;
  }

  /** When its earliest claimable row is due, or earlier (never later). */
  get head(): number {
    const first = this.rows[0];
    return first === undefined ? this.unread : Math.min(first.next_attempt_at, this.unread);
  }
}

/**
 * The owner's directory of origins with pending deliveries (one entry per origin, none per
 * delivery), each with its own read cursor: a claim goes round the origins whose next row is due,
 * oldest first, one row each per turn, and reads an origin's rows only when that origin has room,
 * so a saturated origin's backlog is never walked, and finding work costs the same whatever one
 * origin's backlog. Only the owner writes the file, so the directory stays exact: every change
 * that makes a row due (an insert, a retry, a release, a redelivery, a hold that ended) is noted
 * here; one that may land behind an origin's cursor restarts that origin's reads from its start.
 */
export class OriginQueues {
  readonly #queues = new Map<string, OriginQueue>();
  readonly #reads: OriginReads;
  readonly #isHeld: (id: string) => boolean;
  #loaded = false;
  #buffered = 0;

  constructor(reads: OriginReads, isHeld: (id: string) => boolean) {
    this.#reads = reads;
    this.#isHeld = isHeld;
  }

  /** Origins in the directory (those with a pending delivery not yet read, or read and not taken). */
  get size(): number {
    this.#load();
    return this.#queues.size;
  }

  /**
   * A row of `origin` became due at `dueAt`. `newRow`: it was just inserted, so it sorts after
   * every row of its due time; otherwise a due time at or before the cursor restarts the reads.
   */
  noteDue(origin: string, dueAt: number, newRow = false): void {
    if (!this.#loaded) return;
    const queue = this.#queues.get(origin);
    if (queue === undefined) {
      this.#queues.set(origin, new OriginQueue(origin, dueAt));
      return;
    }
    const cursor = queue.cursor;
    if (cursor !== undefined && (newRow ? dueAt < cursor[0] : dueAt <= cursor[0])) this.#restart(queue, dueAt);
    else queue.unread = Math.min(queue.unread, dueAt);
  }

  /** A row of `origin` may be due behind its cursor (a release, an ended hold, a failed listing): read it from the start. */
  reopen(origin: string, dueAt = Number.NEGATIVE_INFINITY): void {
    if (!this.#loaded) return;
    const queue = this.#queues.get(origin);
    if (queue === undefined) this.#queues.set(origin, new OriginQueue(origin, dueAt));
    else this.#restart(queue, dueAt);
  }

  /**
   * Takes due rows that fit `request` (counting `alreadyTaken` first): round-robin across the
   * origins whose next row is due by `now`, oldest first, one row each per turn.
   */
  take(request: RoomRequest, now: number, alreadyTaken: readonly string[] = []): DueRow[] {
    this.#load();
    const room = new OriginRoom(request, alreadyTaken);
    if (room.full) return [];
    const perRead = Math.min(MAX_PER_READ, Math.max(1, (request.maxPerOrigin ?? MAX_PER_READ) * 4));
    let turn: OriginQueue[] = [];
    for (const queue of this.#queues.values()) {
      if (queue.head <= now && room.roomFor(queue.origin) > 0) turn.push(queue);
    }
    turn.sort((a, b) => a.head - b.head);
    const taken: DueRow[] = [];
    while (turn.length > 0 && !room.full) {
      const next: OriginQueue[] = [];
      for (const queue of turn) {
        if (room.full) break;
        if (room.roomFor(queue.origin) <= 0) continue;
        const row = this.#next(queue, now, perRead);
        if (row === undefined) continue;
        room.take(queue.origin);
        taken.push(row);
        if (queue.head <= now) next.push(queue);
      }
      turn = next;
    }
    if (this.#buffered > MAX_BUFFERED) this.#trim(room);
    return taken;
  }

  /** The earliest head among origins not in `excludeOrigins` whose lane has room. */
  nextDue(excludeOrigins: readonly string[], lanes?: LaneRoom): number | undefined {
    this.#load();
    const excluded = excludeOrigins.length === 0 ? undefined : new Set(excludeOrigins);
    const slow = slowOriginsOf(lanes);
    let earliest = Number.POSITIVE_INFINITY;
    for (const queue of this.#queues.values()) {
      if (queue.head >= earliest || excluded?.has(queue.origin) || !laneOpen(lanes, slow, queue.origin)) continue;
      earliest = queue.head;
    }
    return earliest === Number.POSITIVE_INFINITY ? undefined : earliest;
  }

  /** The directory is built on first use, one index probe per origin (a loose scan), never one per row. */
  #load(): void {
    if (this.#loaded) return;
    for (const [origin, dueAt] of this.#reads.heads()) this.#queues.set(origin, new OriginQueue(origin, dueAt));
    this.#loaded = true;
  }

  #next(queue: OriginQueue, now: number, perRead: number): DueRow | undefined {
    if (queue.rows.length === 0 && queue.unread <= now) this.#read(queue, now, perRead);
    const row = queue.rows.shift();
    if (row !== undefined) this.#buffered--;
    // An origin with nothing left to claim leaves the directory until a row of it is due again.
    if (queue.rows.length === 0 && queue.unread === Number.POSITIVE_INFINITY) this.#queues.delete(queue.origin);
    return row;
  }

  #read(queue: OriginQueue, now: number, limit: number): void {
    const rows = this.#reads.due(queue.origin, now, queue.cursor, limit);
    const last = rows.at(-1);
    // Past every row read, reserved ones included: they come back through noteDue or reopen.
    if (last !== undefined) queue.cursor = [last.next_attempt_at, last.rid];
    for (const row of rows) {
      if (this.#isHeld(row.id)) continue;
      queue.rows.push(row);
      this.#buffered++;
    }
    // A full read may have left due rows behind it; a short one took every row due by now.
    queue.unread =
      last !== undefined && rows.length >= limit
        ? last.next_attempt_at
        : (this.#reads.nextAfter(queue.origin, queue.cursor) ?? Number.POSITIVE_INFINITY);
  }

  #restart(queue: OriginQueue, dueAt: number): void {
    queue.unread = Math.min(queue.head, dueAt);
    this.#buffered -= queue.rows.length;
    queue.rows = [];
    queue.cursor = undefined;
  }

  /** Lets go of rows read for origins that cannot take them now (they stay due in the file). */
  #trim(room: OriginRoom): void {
    for (const queue of this.#queues.values()) {
      if (this.#buffered <= MAX_BUFFERED / 2) return;
      if (queue.rows.length > 0 && room.roomFor(queue.origin) === 0) this.#restart(queue, queue.head);
    }
  }
}
