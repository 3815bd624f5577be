import { describe, expect, it } from 'vitest';
import { Reservations } from './reservations.js';

const row = (id: string, origin = 'https://a.example', attempts = 0) => ({ id, origin, lostLeases: 0, attempts });

describe('Reservations', () => {
  it('holds its own reservations whatever the time: only a result or a release ends them', () => {
    const reservations = new Reservations();
    const a = reservations.take(row('a'));
    // However far a clock moves, nothing of this process lapses.
    expect(reservations.tick(Number.MAX_SAFE_INTEGER, 1000)).toEqual([]);
    expect(reservations.isHeld('a')).toBe(true);
    expect(reservations.end('a', a.token + 1)).toBe(false);
    expect(reservations.end('a', a.token)).toBe(true);
    expect(reservations.isHeld('a')).toBe(false);
  });

  it('holds the previous owner attempts in flight for one lease from the first tick, on the clock it is given', () => {
    const reservations = new Reservations();
    reservations.inherit([{ id: 'x', origin: 'https://b.example', attempts: 2 }]);
    expect(reservations.isHeld('x')).toBe(true);
    expect(reservations.tick(10_000, 500)).toEqual([]);
    expect(reservations.nextHoldEnd([])).toBe(10_500);
    expect(reservations.nextHoldEnd(['https://b.example'])).toBeUndefined();
    expect(reservations.tick(10_499, 500)).toEqual([]);
    expect(reservations.tick(10_500, 500)).toEqual(['https://b.example']);
    expect(reservations.isHeld('x')).toBe(false);
  });

  it('lists reservations and inherited holds for the successor, and counts only its own as running', () => {
    const reservations = new Reservations();
    reservations.inherit([{ id: 'x', origin: 'o', attempts: 2 }]);
    reservations.take(row('a', 'o', 1));
    expect(JSON.parse(reservations.snapshotJson())).toEqual([
      ['a', 1],
      ['x', 2],
    ]);
    expect(JSON.parse(new Reservations().snapshotJson())).toEqual([]);
    expect(reservations.running).toBe(1);
    expect(reservations.inheritedCount).toBe(1);
    // Taking an inherited delivery turns its hold into this process's reservation.
    reservations.take(row('x', 'o', 2));
    expect(reservations.inheritedCount).toBe(0);
    expect(reservations.running).toBe(2);
  });

  it('bumps its version at every change, so the in-flight record is written only when it changed', () => {
    const reservations = new Reservations();
    const start = reservations.version;
    const a = reservations.take(row('a'));
    expect(reservations.version).toBe(start + 1);
    reservations.end('a', a.token);
    expect(reservations.version).toBe(start + 2);
    reservations.tick(0, 10);
    expect(reservations.version).toBe(start + 2);
  });
});
