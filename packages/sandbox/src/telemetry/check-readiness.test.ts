import { describe, expect, it } from 'vitest';
import { checkReadiness, LOOP_STALL_MS } from './check-readiness.js';

const answers = () => 1;
const healthy = () => ({ running: true, busyMs: 0 });

describe('checkReadiness', () => {
  it('is ready when the loop runs and both stores answer', async () => {
    expect(await checkReadiness({ loop: healthy, sandboxStore: answers, deliveryStore: answers })).toEqual({
      ready: true,
      checks: { delivery_loop: 'ok', sandbox_store: 'ok', delivery_store: 'ok' },
    });
  });

  it('a loop stuck in one store call for a minute is not ready, and the reason says for how long', async () => {
    const stuck = () => ({ running: true, busyMs: LOOP_STALL_MS + 4_000 });
    expect(await checkReadiness({ loop: stuck, sandboxStore: answers, deliveryStore: answers })).toEqual({
      ready: false,
      reason: 'the delivery loop has waited 64 s on one store call',
      checks: { delivery_loop: 'failing', sandbox_store: 'ok', delivery_store: 'ok' },
    });
    // A slow pass is not a stuck one.
    const slow = () => ({ running: true, busyMs: LOOP_STALL_MS - 1 });
    expect((await checkReadiness({ loop: slow, sandboxStore: answers, deliveryStore: answers })).ready).toBe(true);
  });

  it('names the failing store without its error message', async () => {
    const fails = () => {
      throw new Error('SQLITE_CANTOPEN: /var/lib/secret-path/sandbox.db');
    };
    const result = await checkReadiness({ loop: healthy, sandboxStore: fails, deliveryStore: answers });
    expect(result).toMatchObject({ ready: false, reason: 'the sandbox database does not answer' });
    expect(JSON.stringify(result)).not.toContain('secret-path');
  });

  it('a delivery store that cannot write is not ready, though it answers reads; the reason names no path', async () => {
    const store = {
      writable: false,
      fenced: false,
      heldResults: 7,
      problem: 'sqlite store: write failed at /var/lib/secret-path',
    };
    const full = () => ({ running: true, busyMs: 0, store });
    const result = await checkReadiness({ loop: full, sandboxStore: answers, deliveryStore: answers });
    expect(result).toEqual({
      ready: false,
      reason: 'the delivery store cannot write; 7 finished results are held until it can',
      checks: { delivery_loop: 'ok', sandbox_store: 'ok', delivery_store: 'failing' },
    });
    expect(JSON.stringify(result)).not.toContain('secret-path');
    const fenced = () => ({ running: true, busyMs: 0, store: { ...store, fenced: true } });
    expect(await checkReadiness({ loop: fenced, sandboxStore: answers, deliveryStore: answers })).toMatchObject({
      ready: false,
      reason: 'another delivery engine owns the delivery store now; this one claims nothing',
    });
  });
});
