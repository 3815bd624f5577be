import { HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import {
  type Answer,
  answerInTurn as answerInTurnOn,
  BASE_URL,
  createTestClient,
  PASSWORD,
  USERNAME,
  useMsw,
} from '../test/support/msw.js';
import { KycClient, KycConnectionError, KycRateLimitError, type KycRetryEvent, KycServerError } from './index.js';

const { server, requests } = useMsw();
const SESSION = 'sess_retry';

const answerInTurn = (...answers: Answer[]) => answerInTurnOn(server, ...answers);

describe('retries', () => {
  it('retries a 503 twice by default, POST included, with jittered backoff, and succeeds', async () => {
    answerInTurn(503, 503, 200);
    const { client, delays } = createTestClient();
    await expect(client.finishSession(SESSION)).resolves.toMatchObject({ state: 'FINISHED' });
    expect(requests.map((request) => request.method)).toEqual(['POST', 'POST', 'POST']);
    // Every attempt carries the credentials and the same body.
    const basic = `Basic ${btoa(`${USERNAME}:${PASSWORD}`)}`;
    expect(requests.map((request) => request.headers.get('authorization'))).toEqual([basic, basic, basic]);
    expect(await Promise.all(requests.map((request) => request.json()))).toEqual(
      Array.from({ length: 3 }, () => ({ sessionId: SESSION })),
    );
    // random() = 0.5 → half of 500 ms, then half of 1000 ms.
    expect(delays).toEqual([250, 500]);
  });

  it('gives up after maxRetries + 1 attempts with the last error', async () => {
    answerInTurn(503);
    const { client, delays } = createTestClient();
    await expect(client.getSession(SESSION)).rejects.toBeInstanceOf(KycServerError);
    expect(requests).toHaveLength(3);
    expect(delays).toHaveLength(2);
  });

  it('makes exactly one attempt with maxRetries: 0', async () => {
    answerInTurn(503);
    const { client } = createTestClient({ maxRetries: 0 });
    await expect(client.getSession(SESSION)).rejects.toBeInstanceOf(KycServerError);
    expect(requests).toHaveLength(1);
  });

  it.each([408, 429, 500, 502, 503, 504])('retries %i', async (status) => {
    answerInTurn(status, 200);
    const { client } = createTestClient();
    await expect(client.getSession(SESSION)).resolves.toMatchObject({ state: 'FINISHED' });
    expect(requests).toHaveLength(2);
  });

  it.each([400, 401, 403, 404, 409, 422, 501])('does not retry %i', async (status) => {
    answerInTurn(status, 200);
    const { client } = createTestClient();
    await expect(client.getSession(SESSION)).rejects.toMatchObject({ status });
    expect(requests).toHaveLength(1);
  });

  it('grows the backoff as min(0.5·2ⁿ, 8) s', async () => {
    answerInTurn(500);
    const { client, delays } = createTestClient({ maxRetries: 6, random: () => 1 });
    await expect(client.getSession(SESSION)).rejects.toBeInstanceOf(KycServerError);
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
  });

  it('retries network errors and ends with KycConnectionError', async () => {
    answerInTurn(() => HttpResponse.error());
    const { client } = createTestClient({ maxRetries: 1 });
    const error = await client.finishSession(SESSION).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KycConnectionError);
    expect((error as Error).message).toMatch(/network/);
    expect(requests).toHaveLength(2);
  });

  it('recovers from a network error', async () => {
    answerInTurn(() => HttpResponse.error(), 200);
    const { client } = createTestClient();
    await expect(client.getSession(SESSION)).resolves.toMatchObject({ state: 'FINISHED' });
  });

  it('waits with the real timer when no sleep is injected', async () => {
    answerInTurn(503, 200);
    const client = new KycClient({ baseUrl: BASE_URL, username: USERNAME, password: PASSWORD, random: () => 0.02 }); // ≈ 10 ms
    await expect(client.getSession(SESSION)).resolves.toMatchObject({ state: 'FINISHED' });
  });
});

describe('Retry-After', () => {
  const limited =
    (retryAfter: string, status = 429) =>
    () =>
      HttpResponse.json(
        { error: { code: 'RATE_LIMITED', message: 'slow down' } },
        { status, headers: { 'retry-after': retryAfter } },
      );

  it('honours delay-seconds instead of the backoff', async () => {
    answerInTurn(limited('3'), 200);
    const { client, delays } = createTestClient();
    await client.getSession(SESSION);
    expect(delays).toEqual([3000]);
  });

  it('honours an HTTP-date', async () => {
    answerInTurn(limited(new Date(Date.now() + 5000).toUTCString()), 200);
    const { client, delays } = createTestClient();
    await client.getSession(SESSION);
    expect(delays).toHaveLength(1);
    // The date has whole seconds, so the wait is between 4 and 5 s.
    expect(delays[0]).toBeGreaterThan(3000);
    expect(delays[0]).toBeLessThanOrEqual(5000);
  });

  it('honours exactly 60 s', async () => {
    answerInTurn(limited('60'), 200);
    const { client, delays } = createTestClient();
    await client.getSession(SESSION);
    expect(delays).toEqual([60 * 1000]);
  });

  it('throws KycRateLimitError at once when asked to wait longer than 60 s', async () => {
    answerInTurn(limited('120'), 200);
    const { client, delays } = createTestClient();
    const error = await client.getSession(SESSION).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KycRateLimitError);
    expect(error).toMatchObject({ status: 429, retryAfterMs: 120_000, code: 'RATE_LIMITED' });
    expect((error as Error).message).toMatch(/Retry-After asked for 120 s, more than the 60 s the client waits/);
    expect(requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('does the same for a far HTTP-date and for a 503', async () => {
    answerInTurn(limited(new Date(Date.now() + 3_600_000).toUTCString(), 503), 200);
    const { client, delays } = createTestClient();
    await expect(client.getSession(SESSION)).rejects.toBeInstanceOf(KycServerError);
    expect(delays).toEqual([]);
  });

  it('sets retryAfterMs on the final 429 after the retries', async () => {
    answerInTurn(limited('1'));
    const { client } = createTestClient();
    await expect(client.getSession(SESSION)).rejects.toMatchObject({ retryAfterMs: 1000 });
    expect(requests).toHaveLength(3);
  });

  it('falls back to backoff for an unreadable value', async () => {
    answerInTurn(limited('soon'), 200);
    const { client, delays } = createTestClient();
    await client.getSession(SESSION);
    expect(delays).toEqual([250]);
  });

  it('does not wait when the wait would outlast the deadline', async () => {
    answerInTurn(limited('5'), 200);
    const { client, delays } = createTestClient({ deadlineMs: 2000 });
    await expect(client.getSession(SESSION)).rejects.toBeInstanceOf(KycRateLimitError);
    expect(delays).toEqual([]);
    expect(requests).toHaveLength(1);
  });
});

describe('tracing', () => {
  it('shows every retry to onRetry and to the logger', async () => {
    answerInTurn(503, () => HttpResponse.error(), 200);
    const events: KycRetryEvent[] = [];
    const warn = vi.fn();
    const { client } = createTestClient({ onRetry: (event) => events.push(event), logger: { warn } });
    await client.finishSession(SESSION);
    expect(events.map(({ attempt, maxAttempts, delayMs }) => ({ attempt, maxAttempts, delayMs }))).toEqual([
      { attempt: 1, maxAttempts: 3, delayMs: 250 },
      { attempt: 2, maxAttempts: 3, delayMs: 500 },
    ]);
    expect(events[0]?.error).toBeInstanceOf(KycServerError);
    expect(events[1]?.error).toBeInstanceOf(KycConnectionError);
    expect(events[0]).toMatchObject({ method: 'POST', url: 'https://kyc.example.test/api/v1/kyc/session/finish' });
    expect(warn).toHaveBeenCalledTimes(2);
    expect(warn.mock.calls[0]?.[0]).toMatch(/POST .* failed \(KycServerError 503\); attempt 2 of 3 in 250 ms/);
  });

  it('ignores a hook or logger that throws', async () => {
    answerInTurn(503, 200);
    const { client } = createTestClient({
      onRetry: () => {
        throw new Error('hook bug');
      },
      logger: {
        warn: () => {
          throw new Error('logger bug');
        },
      },
    });
    await expect(client.getSession(SESSION)).resolves.toMatchObject({ state: 'FINISHED' });
  });
});
