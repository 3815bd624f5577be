import type Database from 'better-sqlite3';
import type { TableNames } from '../schema.js';
import type { Reservations } from './reservations.js';

/**
 * How long a change to the attempts in flight may wait for a group commit to carry it before it
 * is written on its own. Under load every turn commits results, so the record rides along for
 * free; an idle engine sending to a slow endpoint pays one small commit per attempt.
 */
export const IN_FLIGHT_RECORD_DELAY_MS = 20;

/**
 * The owner's record of its attempts in flight, for its successor after a crash: `[id, attempts]`
 * pairs, so a delivery whose result was recorded since is not counted as lost. It is written
 * inside the next group commit, or on its own after {@link IN_FLIGHT_RECORD_DELAY_MS}, so an
 * attempt that kills its process after that counts a lost lease (and, repeated, `worker_lost`).
 */
export interface InFlightRecord {
  /** Writes the record if it changed since last written; runs inside a write transaction. */
  writeIfChanged(): void;
  /** The reservations changed: make sure a commit carries them soon. */
  changed(): void;
  close(): void;
}

export function inFlightRecord(
  db: Database.Database,
  t: TableNames,
  reservations: Reservations,
  options: { readonly owned: () => boolean; readonly commitSoon: () => void },
): InFlightRecord {
  const write = db.prepare(`UPDATE ${t.owner} SET in_flight = ? WHERE id = 1`);
  let writtenVersion = reservations.version;
  let timer: ReturnType<typeof setTimeout> | undefined;
  return {
    writeIfChanged() {
      if (!options.owned() || reservations.version === writtenVersion) return;
      write.run(reservations.snapshotJson());
      writtenVersion = reservations.version;
    },
    changed() {
      if (timer !== undefined) return;
      timer = setTimeout(() => {
        timer = undefined;
        if (reservations.version !== writtenVersion) options.commitSoon();
      }, IN_FLIGHT_RECORD_DELAY_MS);
      // The record must not keep an otherwise finished process alive.
      timer.unref();
    },
    close() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
