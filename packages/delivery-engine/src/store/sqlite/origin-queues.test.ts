import { describe, expect, it } from 'vitest';
import type { DueRow, OriginReads, ReadCursor } from './due-reads.js';
import { OriginQueues } from './origin-queues.js';

/** Pending rows in memory, read the way the SQL reads them: by origin, after a cursor, in due order. */
function table() {
  const rows: DueRow[] = [];
  let rid = 0;
  const after = (row: DueRow, cursor: ReadCursor) =>
    cursor === undefined ||
    row.next_attempt_at > cursor[0] ||
    (row.next_attempt_at === cursor[0] && row.rid > cursor[1]);
  const ofOrigin = (origin: string) =>
    rows.filter((row) => row.origin === origin).sort((a, b) => a.next_attempt_at - b.next_attempt_at || a.rid - b.rid);
  const reads: OriginReads & { calls: number } = {
    calls: 0,
    due(origin, now, cursor, limit) {
      reads.calls++;
      return ofOrigin(origin)
        .filter((row) => row.next_attempt_at <= now && after(row, cursor))
        .slice(0, limit);
    },
    nextAfter: (origin, cursor) => ofOrigin(origin).find((row) => after(row, cursor))?.next_attempt_at,
    heads: () =>
      [...new Set(rows.map((row) => row.origin))].map((origin) => [origin, ofOrigin(origin)[0]?.next_attempt_at ?? 0]),
  };
  const add = (id: string, origin: string, due: number) => {
    const row = { rid: ++rid, id, origin, next_attempt_at: due } as DueRow;
    rows.push(row);
    return row;
  };
  const remove = (id: string) =>
    rows.splice(
      rows.findIndex((row) => row.id === id),
      1,
    );
  return { rows, reads, add, remove };
}

const room = (limit: number, maxPerOrigin = 4) => ({ limit, excludeOrigins: [], maxPerOrigin });
const ids = (rows: readonly DueRow[]) => rows.map((row) => row.id);

describe('OriginQueues', () => {
  it('goes round the origins whose next row is due, oldest first, one row each per turn', () => {
    const t = table();
    for (let i = 0; i < 5; i++) t.add(`a${i}`, 'a', 10 + i);
    t.add('b0', 'b', 12);
    t.add('c0', 'c', 11);
    t.add('late', 'd', 1000);
    const queues = new OriginQueues(t.reads, () => false);
    expect(ids(queues.take(room(4), 100))).toEqual(['a0', 'c0', 'b0', 'a1']);
    expect(queues.nextDue([])).toBe(12);
    expect(queues.nextDue(['a'])).toBe(1000);
  });

  it('never reads a saturated origin, however deep its backlog', () => {
    const t = table();
    for (let i = 0; i < 1000; i++) t.add(`a${i}`, 'a', i);
    t.add('b0', 'b', 5000);
    const queues = new OriginQueues(t.reads, () => false);
    expect(ids(queues.take({ ...room(16), excludeOrigins: ['a'] }, 6000))).toEqual(['b0']);
    expect(t.reads.calls).toBe(1);
  });

  it('reads an origin again from its start when a row comes back behind its cursor, and skips held rows', () => {
    const t = table();
    for (let i = 0; i < 3; i++) t.add(`a${i}`, 'a', 10 + i);
    const held = new Set<string>();
    const queues = new OriginQueues(t.reads, (id) => held.has(id));
    const [first] = queues.take(room(1), 100);
    held.add(first?.id ?? '');
    expect(ids(queues.take(room(2), 100))).toEqual(['a1', 'a2']);
    // Released: due again at its old time, behind the cursor; the others are held now.
    held.delete('a0');
    held.add('a1');
    held.add('a2');
    queues.reopen('a', 10);
    expect(ids(queues.take(room(4), 100))).toEqual(['a0']);
  });

  it('lets an origin with nothing left go, and takes it back when a row of it is due again', () => {
    const t = table();
    t.add('a0', 'a', 10);
    const queues = new OriginQueues(t.reads, () => false);
    expect(ids(queues.take(room(4), 100))).toEqual(['a0']);
    t.remove('a0');
    expect(queues.size).toBe(0);
    expect(queues.nextDue([])).toBeUndefined();
    t.add('a1', 'a', 200);
    queues.noteDue('a', 200, true);
    expect(queues.nextDue([])).toBe(200);
    expect(ids(queues.take(room(4), 100))).toEqual([]);
    expect(ids(queues.take(room(4), 200))).toEqual(['a1']);
  });

  it('a retry due at or before an origin’s cursor restarts its reads, a new row after it does not', () => {
    const t = table();
    t.add('a0', 'a', 10);
    t.add('a1', 'a', 20);
    // As the store does: what a claim takes is reserved until its result.
    const held = new Set<string>();
    const queues = new OriginQueues(t.reads, (id) => held.has(id));
    const take = (limit: number) => {
      const taken = ids(queues.take(room(limit), 100));
      for (const id of taken) held.add(id);
      return taken;
    };
    expect(take(1)).toEqual(['a0']);
    const calls = t.reads.calls;
    t.add('a2', 'a', 20);
    queues.noteDue('a', 20, true);
    expect(take(4)).toEqual(['a1', 'a2']);
    expect(t.reads.calls).toBe(calls + 1);
    // An engine clock set back: a new row due before the cursor is found all the same.
    t.add('early', 'a', 5);
    queues.noteDue('a', 5, true);
    expect(take(4)).toEqual(['early']);
    // A retry of a0 at 20: at the cursor's due time, so the reads restart and find it.
    held.delete('a0');
    // The same row (same row id, now behind the cursor at due time 20), as a result's UPDATE leaves it.
    const a0 = t.rows.find((row) => row.id === 'a0') as { next_attempt_at: number };
    a0.next_attempt_at = 20;
    queues.noteDue('a', 20);
    expect(take(4)).toEqual(['a0']);
  });
});
