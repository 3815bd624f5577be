import { sampleSessionDetails } from '@kyc/contracts';
import { HttpResponse, http } from 'msw';
import { type SetupServer, setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { KycClient, type KycClientOptions } from '../../src/index.js';

/** The service origin the msw suites pretend to be (never resolved: msw answers first). */
export const BASE_URL = 'https://kyc.example.test';
export const USERNAME = 'acme-backend';
/** A password distinctive enough that finding it anywhere is a real leak. */
export const PASSWORD = 'pw-Zq8!vT3#kL9$mN2';

/**
 * One msw server per test file, failing on any request no handler answers, and a log of every
 * request that reached it (to prove a refused call sent nothing).
 */
export function useMsw() {
  const server = setupServer();
  const requests: Request[] = [];
  beforeAll(() => {
    server.listen({ onUnhandledFrame: 'error' });
    server.events.on('request:start', ({ request }) => {
      requests.push(request.clone());
    });
  });
  afterEach(() => {
    server.resetHandlers();
    requests.length = 0;
  });
  afterAll(() => server.close());
  return { server, requests };
}

/** Waits recorded instead of slept, so retry tests take no real time. */
export interface RecordedSleeps {
  readonly delays: number[];
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
}

export function recordSleeps(): RecordedSleeps {
  const delays: number[] = [];
  return {
    delays,
    sleep: async (ms, signal) => {
      delays.push(ms);
      signal.throwIfAborted();
    },
  };
}

/** A client for the msw origin with instant, recorded retry waits and a fixed jitter of 0.5. */
export function createTestClient(overrides: Partial<KycClientOptions> = {}) {
  const sleeps = recordSleeps();
  const client = new KycClient({
    baseUrl: BASE_URL,
    username: USERNAME,
    password: PASSWORD,
    sleep: sleeps.sleep,
    random: () => 0.5,
    ...overrides,
  });
  return { client, delays: sleeps.delays };
}

/** A fresh copy of the contract's sample details, for handlers to answer with. */
export function sampleDetails(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...structuredClone(sampleSessionDetails), ...overrides };
}

/** One answer of {@link answerInTurn}: a status (200 = session details) or a response factory. */
export type Answer = number | (() => Response | Promise<Response>);

/** Answers each request with the next of `answers`, then repeats the last. */
export function answerInTurn(server: SetupServer, ...answers: Answer[]): void {
  let index = 0;
  server.use(
    http.all('*', () => {
      const answer = answers[Math.min(index, answers.length - 1)] ?? 200;
      index += 1;
      if (typeof answer === 'function') return answer();
      if (answer === 200) return HttpResponse.json(sampleDetails());
      return HttpResponse.json({ error: { code: 'INTERNAL', message: 'try later' } }, { status: answer });
    }),
  );
}

/** A sleep that ignores its signal entirely: the client must still end the wait on abort or deadline. */
export const neverEndingSleep = (): Promise<void> => new Promise<void>(() => {});
