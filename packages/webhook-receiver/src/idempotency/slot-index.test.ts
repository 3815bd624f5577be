import { describe, expect, it } from 'vitest';
import { createSlotIndex } from './slot-index.js';

describe('createSlotIndex', () => {
  it('agrees with a Map under random sets and deletes, with colliding and wrapping hashes', () => {
    let state = 42;
    const random = (below: number) => {
      state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
      return state % below;
    };
    for (const hashOf of [(key: string) => key.length % 3, (key: string) => 15 - (key.length % 4), () => 7]) {
      const slots = 8;
      const index = createSlotIndex(slots); // a table of 16 positions: runs of collisions wrap around
      const model = new Map<string, number>();
      const free = Array.from({ length: slots }, (_, slot) => slot);
      const keys = Array.from({ length: 20 }, (_, n) => `k${'x'.repeat(n)}`);
      for (let step = 0; step < 5_000; step++) {
        const key = keys[random(keys.length)] ?? '';
        const slot = model.get(key);
        if (slot !== undefined && random(2) === 0) {
          index.delete(slot);
          model.delete(key);
          free.push(slot);
        } else if (slot === undefined && free.length > 0) {
          const taken = free.splice(random(free.length), 1)[0] ?? 0;
          index.set(key, hashOf(key), taken);
          model.set(key, taken);
        }
        for (const probe of keys) expect(index.find(probe, hashOf(probe))).toBe(model.get(probe) ?? -1);
      }
    }
  });

  it('keeps its keys when it grows, and hashes equal strings equally', () => {
    const index = createSlotIndex(2);
    const key = (n: number) => `id:evt_${n}`;
    index.set(key(0), index.hash(key(0)), 0);
    index.set(key(1), index.hash(key(1)), 1);
    index.grow(1000);
    for (let n = 2; n < 1000; n++) index.set(key(n), index.hash(key(n)), n);
    for (let n = 0; n < 1000; n++) expect(index.find(`id:evt_${n}`, index.hash(`id:evt_${n}`))).toBe(n);
    expect(index.find('id:evt_1000', index.hash('id:evt_1000'))).toBe(-1);
  });
});
