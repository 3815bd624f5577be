import { describe, expect, it } from 'vitest';
import { Reservations } from './reservations.js';

const row = (id: string, origin = 'https://a.example') => ({ id, origin, lostLeases: 0, attempts: 0 });

describe('Reservations', () => {
  it('holds a delivery until its result ends it, and fences off an older token', () => {
    const reservations = new Reservations();
    const first = reservations.take(row('e1'), 1000, 100);
    expect(reservations.running(1050)).toEqual(['e1']);
    expect(reservations.end('e1', first.token + 1)).toBe(false);
    expect(reservations.end('e1', first.token)).toBe(true);
    expect(reservations.running(1050)).toEqual([]);
    expect(reservations.holds('e1', first.token)).toBe(false);
  });

  it('lets a reservation lapse at its lease end and counts the lost lease when it is taken again', () => {
    const reservations = new Reservations();
    const first = reservations.take({ ...row('e1'), lostLeases: 2 }, 1000, 100);
    expect(first.lostLeases).toBe(2);
    expect(reservations.running(1099)).toEqual(['e1']);
    expect(reservations.running(1100)).toEqual([]);
    // A lapsed reservation still records its late result, until someone takes the delivery again.
    expect(reservations.holds('e1', first.token)).toBe(true);
    const second = reservations.take({ ...row('e1'), lostLeases: 2 }, 1100, 100);
    expect(second.lostLeases).toBe(3);
    expect(reservations.end('e1', first.token)).toBe(false);
    expect(reservations.end('e1', second.token)).toBe(true);
  });

  it('tells when the earliest reservation of a usable origin lapses, lapsed or not', () => {
    const reservations = new Reservations();
    const a1 = reservations.take(row('a1'), 1000, 500);
    reservations.take(row('b1', 'https://b.example'), 1000, 300);
    expect(reservations.nextLapse([])).toBe(1300);
    expect(reservations.nextLapse(['https://b.example'])).toBe(1500);
    expect(reservations.leaseEnd('b1')).toBe(1300);
    expect(reservations.ids()).toEqual(['a1', 'b1']);
    reservations.end('a1', a1.token);
    expect(reservations.nextLapse(['https://b.example'])).toBeUndefined();
    expect(reservations.leaseEnd('a1')).toBeUndefined();
  });

  it('changes its version and snapshot with every take and end', () => {
    const reservations = new Reservations();
    const start = reservations.version;
    const taken = reservations.take({ ...row('e1'), attempts: 2 }, 0, 10);
    expect(reservations.snapshot()).toEqual([['e1', 2]]);
    expect(reservations.version).toBe(start + 1);
    reservations.end('e1', taken.token);
    expect(reservations.version).toBe(start + 2);
    expect(reservations.snapshot()).toEqual([]);
  });
});
