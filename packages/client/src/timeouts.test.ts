import { delay, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type Answer,
  answerInTurn as answerInTurnOn,
  BASE_URL,
  createTestClient,
  neverEndingSleep,
  PASSWORD,
  sampleDetails,
  USERNAME,
  useMsw,
} from '../test/support/msw.js';
import { KycAbortError, KycApiError, KycClient, KycServerError, KycTimeoutError } from './index.js';

// Timeouts, the overall deadline, aborts, and the client's own (real-timer) retry wait.
const { server, requests } = useMsw();
const SESSION = 'sess_timing';
const answerInTurn = (...answers: Answer[]) => answerInTurnOn(server, ...answers);

describe('timeouts', () => {
  it('bounds each attempt with timeoutMs and retries it', async () => {
    answerInTurn(async () => {
      await delay(2000);
      return HttpResponse.json(sampleDetails());
    });
    const { client } = createTestClient({ timeoutMs: 50, maxRetries: 1 });
    const error = await client.getSession(SESSION).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KycTimeoutError);
    expect(error).toMatchObject({ kind: 'attempt', timeoutMs: 50 });
    expect(requests).toHaveLength(2);
  });

  it('recovers when a later attempt is fast', async () => {
    answerInTurn(async () => {
      await delay(2000);
      return HttpResponse.json(sampleDetails());
    }, 200);
    const { client } = createTestClient({ timeoutMs: 50 });
    await expect(client.getSession(SESSION)).resolves.toMatchObject({ state: 'FINISHED' });
  });

  it('covers a body that stalls after the headers (ky’s own timeout stops at the headers)', async () => {
    answerInTurn(
      () =>
        new HttpResponse(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode('{"id":'));
            },
          }),
          // A declared length, as a real server sends. Without one the body is read until the
          // socket closes, and when msw 3's mock socket closes after the client aborted, Node's
          // bundled undici (7.29) completes the aborted request and trips its own
          // `assert(!this.aborted)`, an uncaught error in the test run (not our code's doing).
          { headers: { 'content-type': 'application/json', 'content-length': '64' } },
        ),
    );
    const { client } = createTestClient({ timeoutMs: 50, maxRetries: 1 });
    await expect(client.getSession(SESSION)).rejects.toMatchObject({ name: 'KycTimeoutError', kind: 'attempt' });
    // The stalled attempt counts as a timed-out attempt and is sent again.
    expect(requests).toHaveLength(2);
  });

  it('bounds all attempts together with deadlineMs', async () => {
    answerInTurn(async () => {
      await delay(100);
      return HttpResponse.json({}, { status: 503 });
    });
    const { client } = createTestClient({ timeoutMs: 1000, deadlineMs: 250, maxRetries: 10, random: () => 0 });
    const started = Date.now();
    const error = await client.getSession(SESSION).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KycTimeoutError);
    expect(error).toMatchObject({ kind: 'deadline', timeoutMs: 250 });
    expect(requests.length).toBeGreaterThanOrEqual(2);
    expect(requests.length).toBeLessThanOrEqual(3);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('ends with the deadline when a retryable answer is read after it passed (a blocked event loop)', async () => {
    // The answer comes back only after the deadline, and before any timer could fire: this is
    // what a loaded machine did to the test above, which then saw the 503 instead of the deadline.
    const blockedPastDeadline = async () => {
      const until = performance.now() + 120;
      while (performance.now() < until) {
        // Synchronously busy, as an overloaded process is: no timer runs meanwhile.
      }
      return new Response('{}', { status: 503, headers: { 'content-type': 'application/json' } });
    };
    const { client } = createTestClient({
      deadlineMs: 100,
      maxRetries: 10,
      random: () => 0,
      fetch: blockedPastDeadline,
    });
    const error = await client.getSession(SESSION).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KycTimeoutError);
    expect(error).toMatchObject({ kind: 'deadline', timeoutMs: 100 });
    expect((error as KycTimeoutError).cause).toBeInstanceOf(KycServerError);
  });

  it('ends a retry wait at the deadline', async () => {
    answerInTurn(503);
    // random 0.02 → a 10 ms wait, which fits the deadline, but the sleep never ends on its own.
    const { client } = createTestClient({ deadlineMs: 100, sleep: neverEndingSleep, random: () => 0.02 });
    const error = await client.getSession(SESSION).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'KycTimeoutError', kind: 'deadline' });
    expect((error as KycTimeoutError).cause).toBeInstanceOf(KycServerError);
  });
});

describe('abort', () => {
  it('sends nothing when the signal is already aborted', async () => {
    answerInTurn(200);
    const { client } = createTestClient();
    const error = await client.getSession(SESSION, { signal: AbortSignal.abort('stop') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KycAbortError);
    expect((error as Error).cause).toBe('stop');
    expect(requests).toHaveLength(0);
  });

  it('aborts a request in flight and does not retry it', async () => {
    answerInTurn(async () => {
      await delay(5000);
      return HttpResponse.json(sampleDetails());
    });
    const { client } = createTestClient();
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user gave up')), 30);
    const error = await client.finishSession(SESSION, { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KycAbortError);
    expect(((error as Error).cause as Error).message).toBe('user gave up');
    expect(requests).toHaveLength(1);
  });

  it('aborts a retry wait', async () => {
    answerInTurn(503);
    const controller = new AbortController();
    const { client } = createTestClient({ sleep: neverEndingSleep, onRetry: () => controller.abort() });
    await expect(client.getSession(SESSION, { signal: controller.signal })).rejects.toBeInstanceOf(KycAbortError);
    expect(requests).toHaveLength(1);
  });

  it('is not confused with an API error', async () => {
    answerInTurn(503);
    const { client } = createTestClient();
    const error = await client.getSession(SESSION, { signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(KycApiError);
  });
});

describe('the built-in retry wait (no sleep injected)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const realClient = (overrides: Partial<ConstructorParameters<typeof KycClient>[0]> = {}) =>
    new KycClient({ baseUrl: BASE_URL, username: USERNAME, password: PASSWORD, random: () => 0.5, ...overrides });

  // Lets msw and ky finish what they do without timers (promises, setImmediate).
  async function settle(): Promise<void> {
    for (let round = 0; round < 20; round += 1) await new Promise((resolve) => setImmediate(resolve));
  }

  it('waits exactly the jittered backoff, on fake timers', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    answerInTurn(503, 503, 200);
    const call = realClient().getSession(SESSION);
    await settle();
    expect(requests).toHaveLength(1);
    // random 0.5: 250 ms before the second attempt, 500 ms before the third.
    await vi.advanceTimersByTimeAsync(249);
    await settle();
    expect(requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await settle();
    expect(requests).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(499);
    await settle();
    expect(requests).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    await settle();
    await expect(call).resolves.toMatchObject({ state: 'FINISHED' });
    expect(requests).toHaveLength(3);
  });

  it('waits Retry-After seconds, on fake timers', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    answerInTurn(() => HttpResponse.json({}, { status: 429, headers: { 'retry-after': '30' } }), 200);
    const call = realClient().finishSession(SESSION);
    await settle();
    await vi.advanceTimersByTimeAsync(29_999);
    await settle();
    expect(requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await settle();
    await expect(call).resolves.toMatchObject({ state: 'FINISHED' });
    expect(requests.map((request) => request.method)).toEqual(['POST', 'POST']);
  });

  it('ends at once when the signal aborts during the wait', async () => {
    answerInTurn(503);
    const controller = new AbortController();
    // random 1 → a 500 ms wait, aborted as soon as it is announced.
    const client = realClient({ random: () => 1, onRetry: () => controller.abort(new Error('stop')) });
    const started = performance.now();
    const error = await client.getSession(SESSION, { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KycAbortError);
    expect(performance.now() - started).toBeLessThan(450);
    expect(requests).toHaveLength(1);
  });
});
