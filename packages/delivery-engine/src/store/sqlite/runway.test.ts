import { describe, expect, it } from 'vitest';
import type { DueRow } from './due-reads.js';
import { Runway, type RunwayEntry } from './runway.js';

let rid = 0;
const entry = (origin: string, durable: boolean, dueAt = 0): RunwayEntry => {
  rid++;
  const row = { rid, id: `d${rid}`, origin, next_attempt_at: dueAt } as DueRow;
  const reservation = { id: row.id, origin, token: rid, lostLeases: 0, attempts: 0, pairJson: `["${row.id}",0]` };
  return { row, reservation, durable };
};
const request = { limit: 10, excludeOrigins: [] as string[] };

describe('Runway', () => {
  it('hands out only rows whose listing as in flight is durable', () => {
    const runway = new Runway();
    const listed = entry('a', true);
    const pending = entry('a', false);
    runway.add([listed, pending]);
    expect(runway.listing).toBe(true);
    expect(runway.take(request)).toEqual([listed]);
    pending.durable = true;
    expect(runway.listing).toBe(false);
    expect(runway.take(request)).toEqual([pending]);
    expect(runway.size).toBe(0);
  });

  it('applies the room of each origin at hand-out, and keeps what does not fit', () => {
    const runway = new Runway();
    const rows = [entry('a', true), entry('a', true), entry('b', true), entry('c', true)];
    runway.add(rows);
    expect(runway.perOrigin()).toEqual([
      ['a', 2],
      ['b', 1],
      ['c', 1],
    ]);
    const taken = runway.take({ limit: 10, excludeOrigins: ['c'], maxPerOrigin: 2, busyOrigins: [['a', 1]] });
    expect(taken.map((e) => e.row.origin)).toEqual(['a', 'b']);
    expect(runway.size).toBe(2);
    expect(runway.nextDue(['a'])).toBe(0);
    expect(runway.nextDue(['a', 'c'])).toBeUndefined();
    expect(runway.drop().length).toBe(2);
  });
});
