import { describe, expect, it } from 'vitest';
import { newEventId, uuidV7ForTests } from './event-id.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newEventId', () => {
  it('is evt_ and a UUIDv7 whose first 48 bits are the time in ms', () => {
    for (const make of [() => newEventId().slice(4), uuidV7ForTests]) {
      const before = Date.now();
      const id = make();
      const after = Date.now();
      expect(id).toMatch(V7);
      const ms = Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);
      expect(ms).toBeGreaterThanOrEqual(before);
      expect(ms).toBeLessThanOrEqual(after);
    }
  });

  it('sorts by creation time across milliseconds, so new rows land at the end of a key index', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(newEventId(), uuidV7ForTests());
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const byMs = (id: string) => id.replace(/^evt_/, '').slice(0, 13);
    const stamps = ids.map(byMs);
    expect([...stamps].sort()).toEqual(stamps);
  });

  it('never repeats (random bits below the time)', () => {
    const ids = new Set(Array.from({ length: 20_000 }, () => uuidV7ForTests()));
    expect(ids.size).toBe(20_000);
  });
});
