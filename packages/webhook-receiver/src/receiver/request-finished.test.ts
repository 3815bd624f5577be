import { describe, expect, it } from 'vitest';
import { errorAnswer } from './answers.js';
import { finishRequest, type RequestFinished, startTrace } from './request-finished.js';
import type { ReceiverAnswer } from './types.js';

const ok = { outcome: 'processed', status: 200, headers: {}, body: '{}' } satisfies ReceiverAnswer;

describe('the request-finished seam', () => {
  it('runs listeners in order; a replacement answer is seen by the next listener and returned', async () => {
    const seen: string[] = [];
    const trace = startTrace(1_700_000_000_000, { header: () => undefined });
    const answer = await finishRequest(
      [
        (finished) => {
          seen.push(`first saw ${finished.answer.outcome}`);
          return errorAnswer(503, 'store_unavailable', 60);
        },
        (finished: RequestFinished) => {
          seen.push(`second saw ${finished.answer.outcome} ${finished.answer.code}`);
          return undefined;
        },
      ],
      trace,
      ok,
      {},
    );
    expect(seen).toEqual(['first saw processed', 'second saw store_unavailable store_unavailable']);
    expect(answer).toMatchObject({ status: 503, outcome: 'store_unavailable' });
    expect(trace.receivedAt).toBe(1_700_000_000_000);
    expect(trace.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('a listener that throws or rejects is logged and leaves the answer as it was', async () => {
    const lines: string[] = [];
    const answer = await finishRequest(
      [
        () => {
          throw new Error('boom');
        },
        () => Promise.reject(new Error('async boom')),
      ],
      startTrace(0, { header: () => undefined }),
      ok,
      { error: (message, fields) => lines.push(`${message} ${String(fields?.errorMessage)}`) },
    );
    expect(answer).toBe(ok);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('async boom');
  });
});
