/** One delivery taken by this process for an attempt. */
export interface Reservation {
  readonly id: string;
  readonly origin: string;
  /** Fencing token: a result is recorded only while it is still the reservation's token. */
  readonly token: number;
  /** When the reservation lapses without a result (the in-memory form of a lease). */
  readonly until: number;
  /** Reservations of this delivery that lapsed without a result, in a row. */
  readonly lostLeases: number;
  /** Attempts the store had recorded when the delivery was taken (tells a result from none after a crash). */
  readonly attempts: number;
}

/**
 * The owner mode's claims: with one process owning the file, taking a delivery for an attempt is
 * a note in memory rather than a write. A reservation ends when the attempt's result is
 * committed or the claim is released; one that outlives its lease (its result could not be
 * written) lapses, and the delivery can be taken again, counting a lost lease, exactly as a
 * durable lease would. At most the engine's concurrency plus the results being written are
 * held at once.
 */
export class Reservations {
  readonly #byId = new Map<string, Reservation>();
  #lastToken = 0;
  /** Bumped at every change, so the record of attempts in flight is written only when it changed. */
  #version = 0;

  take(
    row: { readonly id: string; readonly origin: string; readonly lostLeases: number; readonly attempts: number },
    now: number,
    leaseMs: number,
  ): Reservation {
    const lapsed = this.#byId.get(row.id);
    const reservation: Reservation = {
      id: row.id,
      origin: row.origin,
      token: ++this.#lastToken,
      until: now + leaseMs,
      lostLeases: lapsed === undefined ? row.lostLeases : lapsed.lostLeases + 1,
      attempts: row.attempts,
    };
    this.#byId.set(row.id, reservation);
    this.#version++;
    return reservation;
  }

  /** Whether `token` is still the reservation of `id` (lapsed or not). */
  holds(id: string, token: number): boolean {
    return this.#byId.get(id)?.token === token;
  }

  /** Ends the reservation of `id` if `token` is still its own. */
  end(id: string, token: number): boolean {
    if (!this.holds(id, token)) return false;
    this.#byId.delete(id);
    this.#version++;
    return true;
  }

  /** Ids whose reservation runs at `now`: not to be taken again. */
  running(now: number): string[] {
    const ids: string[] = [];
    for (const reservation of this.#byId.values()) if (reservation.until > now) ids.push(reservation.id);
    return ids;
  }

  /** Whether `id` is reserved at `now` (taken and not lapsed). */
  isRunning(id: string, now: number): boolean {
    const reservation = this.#byId.get(id);
    return reservation !== undefined && reservation.until > now;
  }

  /** Whether some reservation has lapsed by `now` (its delivery may be taken again). */
  hasLapsed(now: number): boolean {
    for (const reservation of this.#byId.values()) if (reservation.until <= now) return true;
    return false;
  }

  /** When each reservation that lapsed by `now` lapsed. */
  lapsed(now: number): number[] {
    const times: number[] = [];
    for (const reservation of this.#byId.values()) if (reservation.until <= now) times.push(reservation.until);
    return times;
  }

  /** Every reserved id, lapsed or not. */
  ids(): string[] {
    return [...this.#byId.keys()];
  }

  /** When the reservation of `id` ends (or ended) without a result. */
  leaseEnd(id: string): number | undefined {
    return this.#byId.get(id)?.until;
  }

  /**
   * When the earliest reservation outside `excludeOrigins` lapses (or lapsed: a time in the past
   * means its delivery may be taken again now).
   */
  nextLapse(excludeOrigins: readonly string[]): number | undefined {
    let earliest: number | undefined;
    for (const reservation of this.#byId.values()) {
      if (excludeOrigins.includes(reservation.origin)) continue;
      if (earliest === undefined || reservation.until < earliest) earliest = reservation.until;
    }
    return earliest;
  }

  /** `[id, attempts]` of every reservation, as the owner records them for its successor. */
  snapshot(): [string, number][] {
    return [...this.#byId.values()].map((reservation) => [reservation.id, reservation.attempts]);
  }

  get version(): number {
    return this.#version;
  }
}
