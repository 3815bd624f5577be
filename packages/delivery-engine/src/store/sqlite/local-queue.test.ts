import { describe, expect, it } from 'vitest';
import { LocalQueue, type QueuedRow } from './local-queue.js';

const row = (rid: number, origin = 'a', dueAt = 100): QueuedRow => ({
  id: `d${rid}`,
  origin,
  next_attempt_at: dueAt,
  rid,
});
const ids = (rows: readonly QueuedRow[]) => rows.map((r) => r.id);
const any = { limit: 10, excludeOrigins: [] };

describe('LocalQueue', () => {
  it('hands out rows in due order and keeps the rest for later claims', () => {
    const queue = new LocalQueue();
    queue.append([row(1), row(2), row(3)], true);
    expect(ids(queue.take({ ...any, limit: 2 }))).toEqual(['d1', 'd2']);
    expect(ids(queue.take(any))).toEqual(['d3']);
    expect(queue.take(any)).toEqual([]);
  });

  it('moves the cursor past a read that covered every due row, and not past one that skipped origins', () => {
    const queue = new LocalQueue();
    queue.append([row(1, 'a', 100), row(7, 'a', 120)], true);
    expect(queue.cursor).toEqual([120, 7]);
    // Rows the caller already held were left out, but the read went on to row 9.
    queue.append([], true, row(9, 'a', 130));
    expect(queue.cursor).toEqual([130, 9]);
    queue.reset();
    queue.append([row(2)], false);
    expect(queue.cursor).toBeUndefined();
    expect(queue.ids()).toEqual(['d2']);
  });

  it('keeps rows of an origin without room queued, in order, until it has room', () => {
    const queue = new LocalQueue();
    queue.append([row(1, 'a'), row(2, 'b'), row(3, 'a'), row(4, 'c')], true);
    expect(ids(queue.take({ limit: 10, excludeOrigins: ['a'] }))).toEqual(['d2', 'd4']);
    expect(ids(queue.take({ limit: 10, excludeOrigins: [], maxPerOrigin: 2, busyOrigins: [['a', 1]] }))).toEqual([
      'd1',
    ]);
    expect(ids(queue.take(any))).toEqual(['d3']);
  });

  it('counts the rows a claim already took against their origin and the limit', () => {
    const queue = new LocalQueue();
    queue.append([row(1, 'a'), row(2, 'a'), row(3, 'b')], true);
    const first = queue.take({ limit: 3, excludeOrigins: [], maxPerOrigin: 2 });
    queue.append([row(4, 'a'), row(5, 'b'), row(6, 'c')], true);
    // Room for two more in all: origin a is full with the two it took, b has one left, c two.
    expect(ids(queue.take({ limit: 5, excludeOrigins: [], maxPerOrigin: 2 }, first))).toEqual(['d5', 'd6']);
    expect(queue.ids()).toEqual(['d4']);
  });

  it('lets rows go and reads from the start when more than it may hold wait on full origins', () => {
    const queue = new LocalQueue();
    queue.append(
      Array.from({ length: 300 }, (_, i) => row(i + 1, 'dead')),
      true,
    );
    expect(queue.take({ limit: 16, excludeOrigins: ['dead'] })).toEqual([]);
    expect(queue.size).toBe(0);
    expect(queue.cursor).toBeUndefined();
  });
});
