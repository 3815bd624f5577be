import { describe, expect, it } from 'vitest';
import { withinOriginRoom } from './within-origin-room.js';

const rows = (...origins: string[]) => origins.map((origin, index) => ({ id: `d${index}`, origin }));
const ids = (chosen: readonly { id: string }[]) => chosen.map((row) => row.id);

describe('withinOriginRoom', () => {
  it('keeps the oldest rows of each origin up to maxPerOrigin, in the candidates order', () => {
    expect(ids(withinOriginRoom(rows('a', 'a', 'b', 'a', 'b', 'c'), { limit: 6, maxPerOrigin: 2 }))).toEqual([
      'd0',
      'd1',
      'd2',
      'd4',
      'd5',
    ]);
  });

  it('counts the attempts an origin already has in flight against its room', () => {
    const busyOrigins = [
      ['a', 1],
      ['b', 2],
    ] as const;
    expect(ids(withinOriginRoom(rows('a', 'a', 'b', 'c'), { limit: 4, maxPerOrigin: 2, busyOrigins }))).toEqual([
      'd0',
      'd3',
    ]);
  });

  it('without maxPerOrigin, lets every candidate through (the limit already bounds them)', () => {
    expect(ids(withinOriginRoom(rows('a', 'a', 'a'), { limit: 3 }))).toEqual(['d0', 'd1', 'd2']);
  });

  it('gives an origin busier than its room nothing, not a negative share', () => {
    expect(ids(withinOriginRoom(rows('a', 'b'), { limit: 2, maxPerOrigin: 1, busyOrigins: [['a', 5]] }))).toEqual([
      'd1',
    ]);
  });
});
