import { afterEach, describe, expect, it } from 'vitest';
import { type AttemptSlots, createAttemptSlots } from './attempt-slots.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('attempt slots', () => {
  let slots: AttemptSlots;
  let rooms = 0;
  const make = (options: Partial<Parameters<typeof createAttemptSlots>[0]> = {}) => {
    rooms = 0;
    slots = createAttemptSlots({
      concurrency: 4,
      slowConcurrency: 8,
      perEndpoint: 2,
      slowAfterMs: 30,
      onRoom: () => rooms++,
      ...options,
    });
    return slots;
  };
  afterEach(() => slots.close());

  it('moves an attempt unanswered after slowAfterMs to the slow lane, freeing its prompt slot, and starts its origin there', async () => {
    make();
    const dead = ['https://d1', 'https://d2'].flatMap((origin) => [slots.acquire(origin), slots.acquire(origin)]);
    expect(dead.every((slot) => slot?.lane === 'prompt')).toBe(true);
    expect(slots.room()).toBeUndefined();
    await pause(80);
    // The hanging attempts left the prompt lane: it is free for others, and the loop was woken.
    expect(rooms).toBeGreaterThan(0);
    expect(slots.snapshot()).toMatchObject({ prompt: { inFlight: 0 }, slow: { inFlight: 4 }, slowOriginCount: 2 });
    const room = slots.room();
    expect(room).toMatchObject({ limit: 4, slow: { limit: 4 }, excludeOrigins: ['https://d1', 'https://d2'] });
    expect(room?.slow?.origins).toEqual(['https://d1', 'https://d2']);
    // Their per-origin cap holds in both lanes together.
    expect(slots.acquire('https://d1')).toBeUndefined();
    const [first] = dead;
    if (first !== undefined) slots.release(first, true);
    expect(slots.acquire('https://d1')?.lane).toBe('slow');
    expect(slots.snapshot().slowOrigins.find((o) => o.origin === 'https://d1')).toMatchObject({
      reason: 'timeout',
      inFlight: 2,
    });
  });

  it('counts an origin as prompt again once an attempt answers within slowAfterMs', async () => {
    make();
    const late = slots.acquire('https://late');
    await pause(50);
    if (late !== undefined) slots.release(late, false);
    expect(slots.snapshot().slowOrigins).toMatchObject([{ origin: 'https://late', reason: 'slow_answer' }]);
    const next = slots.acquire('https://late');
    expect(next?.lane).toBe('slow');
    if (next !== undefined) slots.release(next, false);
    expect(slots.snapshot().slowOriginCount).toBe(0);
    expect(slots.acquire('https://late')?.lane).toBe('prompt');
  });

  it('stops claiming slow origins when the slow lane is full, and the prompt lane keeps its slots', async () => {
    make({ slowConcurrency: 2, perEndpoint: 1 });
    slots.acquire('https://d1');
    slots.acquire('https://d2');
    await pause(80);
    expect(slots.room()).toMatchObject({ limit: 4, slow: { limit: 0 } });
    for (let i = 0; i < 4; i++) expect(slots.acquire(`https://ok${i}`)?.lane).toBe('prompt');
    expect(slots.room()).toBeUndefined();
    expect(slots.inFlight).toBe(6);
  });

  it('moves attempts even past a full slow lane, but never holds more than both lanes together', async () => {
    make({ concurrency: 2, slowConcurrency: 1, perEndpoint: 1 });
    slots.acquire('https://d1');
    slots.acquire('https://d2');
    await pause(80);
    // Two hanging attempts in a slow lane of one: the prompt lane still has one slot of the three.
    expect(slots.snapshot()).toMatchObject({ prompt: { inFlight: 0 }, slow: { inFlight: 2 } });
    expect(slots.room()).toMatchObject({ limit: 1, slow: { limit: 0 } });
    expect(slots.acquire('https://ok')?.lane).toBe('prompt');
    expect(slots.acquire('https://ok2')).toBeUndefined();
  });
});
