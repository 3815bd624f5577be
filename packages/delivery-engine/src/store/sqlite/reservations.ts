/** One delivery taken by this process for an attempt. */
export interface Reservation {
  readonly id: string;
  readonly origin: string;
  /** Fencing token: a result is recorded only while it is still the reservation's token. */
  readonly token: number;
  /** Sends of this delivery that ended without a recorded result before this one. */
  readonly lostLeases: number;
  /** Attempts the store had recorded when the delivery was taken: a result is recorded only if none came since. */
  readonly attempts: number;
  /** `[id, attempts]` as JSON, made once: the record of attempts in flight is rewritten at every commit. */
  readonly pairJson: string;
}

const pairJson = (id: string, attempts: number) => `[${JSON.stringify(id)},${attempts}]`;

/** A delivery the previous owner had in flight when this process took the file over. */
interface Inherited {
  readonly origin: string;
  readonly attempts: number;
  /** Monotonic time (engine units) the hold ends; set at the first claim after the takeover. */
  until: number | undefined;
}

/**
 * The owner's claims. With one process owning the file, taking a delivery for an attempt is a note
 * in memory, written to the file (as the list of attempts in flight) before the attempt is sent.
 *
 * A reservation of this process never lapses on a timer: it ends when its result is committed or
 * the claim is released, and a result the store cannot write yet is held, not dropped, so no clock
 * (stepped, paused or resumed) can make this process send a delivery it is still sending. What can
 * lapse is an inherited hold: the deliveries the previous owner had in flight are left alone for
 * one lease, measured on a monotonic clock, so an owner that is still alive (fenced off, finishing
 * its attempts) is not raced; after that they are due again, with one more unrecorded send.
 */
export class Reservations {
  readonly #byId = new Map<string, Reservation>();
  readonly #inherited = new Map<string, Inherited>();
  #lastToken = 0;
  /** Bumped at every change, so the record of attempts in flight is written only when it changed. */
  #version = 0;

  /** Holds the predecessor's attempts in flight (ids with their origins) until one lease after the first claim. */
  inherit(rows: readonly { readonly id: string; readonly origin: string; readonly attempts: number }[]): void {
    for (const row of rows)
      this.#inherited.set(row.id, { origin: row.origin, attempts: row.attempts, until: undefined });
    if (rows.length > 0) this.#version++;
  }

  take(row: {
    readonly id: string;
    readonly origin: string;
    readonly lostLeases: number;
    readonly attempts: number;
  }): Reservation {
    const reservation: Reservation = {
      id: row.id,
      origin: row.origin,
      token: ++this.#lastToken,
      lostLeases: row.lostLeases,
      attempts: row.attempts,
      pairJson: pairJson(row.id, row.attempts),
    };
    this.#inherited.delete(row.id);
    this.#byId.set(row.id, reservation);
    this.#version++;
    return reservation;
  }

  /**
   * Starts the inherited holds' clocks (once) and lets go of those that ended by `elapsed`;
   * returns the origins of those that ended (their deliveries are due again, possibly behind a
   * read cursor).
   */
  tick(elapsed: number, leaseMs: number): string[] {
    const ended: string[] = [];
    for (const [id, hold] of this.#inherited) {
      hold.until ??= elapsed + leaseMs;
      if (hold.until > elapsed) continue;
      this.#inherited.delete(id);
      this.#version++;
      ended.push(hold.origin);
    }
    return ended;
  }

  /** Whether `token` is still the reservation of `id`. */
  holds(id: string, token: number): boolean {
    return this.#byId.get(id)?.token === token;
  }

  get(id: string): Reservation | undefined {
    return this.#byId.get(id);
  }

  /** Ends the reservation of `id` if `token` is still its own. */
  end(id: string, token: number): boolean {
    if (!this.holds(id, token)) return false;
    this.#byId.delete(id);
    this.#version++;
    return true;
  }

  /** Whether `id` may not be taken now (reserved here, or still held for the previous owner). */
  isHeld(id: string): boolean {
    return this.#byId.has(id) || this.#inherited.has(id);
  }

  /** Every id not to be taken now. */
  ids(): string[] {
    return [...this.#byId.keys(), ...this.#inherited.keys()];
  }

  /** Attempts in flight here (the inherited holds are not this process's attempts). */
  get running(): number {
    return this.#byId.size;
  }

  /** Monotonic time (engine units) the earliest inherited hold outside `excludeOrigins` ends, if any. */
  nextHoldEnd(excludeOrigins: readonly string[]): number | undefined {
    let earliest: number | undefined;
    for (const hold of this.#inherited.values()) {
      if (hold.until === undefined || excludeOrigins.includes(hold.origin)) continue;
      if (earliest === undefined || hold.until < earliest) earliest = hold.until;
    }
    return earliest;
  }

  get inheritedCount(): number {
    return this.#inherited.size;
  }

  /**
   * `[id, attempts]` of every reservation and inherited hold, as a JSON array, as the owner
   * records them for its successor: a predecessor that is still alive may still be sending the
   * inherited ones. Joined from each reservation's own JSON, so a commit serialises no id again.
   */
  snapshotJson(): string {
    let json = '';
    for (const reservation of this.#byId.values()) json += `${json === '' ? '' : ','}${reservation.pairJson}`;
    for (const [id, hold] of this.#inherited) json += `${json === '' ? '' : ','}${pairJson(id, hold.attempts)}`;
    return `[${json}]`;
  }

  get version(): number {
    return this.#version;
  }
}
