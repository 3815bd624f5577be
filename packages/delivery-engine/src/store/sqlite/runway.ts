import { laneOpen, type RoomRequest, slowOriginsOf, takeWithRoom } from '../origin-room.js';
import type { LaneRoom } from '../store.js';
import type { DueRow } from './due-reads.js';
import type { Reservation } from './reservations.js';

/** A row reserved ahead of the engine's claims. */
export interface RunwayEntry {
  readonly row: DueRow;
  readonly reservation: Reservation;
  /** The file lists it as in flight: it may be sent. */
  durable: boolean;
}

/**
 * How many rows the owner reserves ahead of its claims. Each top-up (at half spent) costs a
 * commit the next claim may have to force: with 16 rows that was a commit per 8 deliveries at
 * full speed, the largest share of the owner's SQLite time; with 64, one per 32. The price is
 * the crash count below: up to this many rows more held and counted after a crash.
 */
export const RUNWAY_ROWS = 64;

/** One endpoint may hold this many times its `maxPerOrigin` in the runway: its slots free again and again. */
export const RUNWAY_PER_ORIGIN_FACTOR = 4;

/**
 * Deliveries the owner reserved before the engine asked for them. Nothing may be sent before the
 * file lists it as in flight (a successor must know every send that may lack a result), and a
 * commit just for that before each send cost a tenth of the throughput. So the owner reserves a
 * runway of due rows ahead, lists them in the next group commit (which the results of the moment
 * pay for anyway), and hands them out only once that commit is durable. The price is on a crash:
 * a successor also counts, and holds for a lease, the runway rows that were never sent.
 */
export class Runway {
  #entries: RunwayEntry[] = [];

  get size(): number {
    return this.#entries.length;
  }

  /** Some entries wait for the commit that lists them. */
  get listing(): boolean {
    return this.#entries.some((entry) => !entry.durable);
  }

  add(entries: readonly RunwayEntry[]): void {
    for (const entry of entries) this.#entries.push(entry);
  }

  /**
   * Hands out, in due order, durable rows whose origin and lane have room (the same room rules
   * as a claim, counting `alreadyTaken` first).
   */
  take(request: RoomRequest, alreadyTaken: readonly string[] = []): RunwayEntry[] {
    if (this.#entries.length === 0) return [];
    const { taken, kept } = takeWithRoom(this.#entries, request, (entry) => entry.row.origin, {
      alreadyTaken,
      eligible: (entry) => entry.durable,
    });
    this.#entries = kept;
    return taken;
  }

  /** How many rows of each origin the runway holds. */
  perOrigin(): [string, number][] {
    const counts = new Map<string, number>();
    for (const { row } of this.#entries) counts.set(row.origin, (counts.get(row.origin) ?? 0) + 1);
    return [...counts];
  }

  /** Removes and returns the entries `which` selects (those whose listing failed; all, at close). */
  drop(which: (entry: RunwayEntry) => boolean = () => true): RunwayEntry[] {
    const dropped = this.#entries.filter(which);
    this.#entries = this.#entries.filter((entry) => !which(entry));
    return dropped;
  }

  /** The earliest due time among rows outside `excludeOrigins` whose lane has room (they are due: the engine may claim them). */
  nextDue(excludeOrigins: readonly string[], lanes?: LaneRoom): number | undefined {
    let earliest: number | undefined;
    const slow = slowOriginsOf(lanes);
    for (const { row } of this.#entries) {
      if (excludeOrigins.includes(row.origin) || !laneOpen(lanes, slow, row.origin)) continue;
      if (earliest === undefined || row.next_attempt_at < earliest) earliest = row.next_attempt_at;
    }
    return earliest;
  }
}
