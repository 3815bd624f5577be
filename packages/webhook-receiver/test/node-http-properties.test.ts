import { createServer } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toNodeHandler } from '../src/node.js';
import { listen } from './support/listen.js';
import { checkAnswer, handledTrials, headersOf, propertyReceiver, trial } from './support/properties.js';

describe('toNodeHandler over node:http (property)', () => {
  const { receiver, state } = propertyReceiver();
  let server: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    server = await listen(createServer(toNodeHandler(receiver)));
  });
  afterAll(() => server.close());

  it('holds the same claims for arbitrary bytes and headers on the wire', async () => {
    let totalRuns = 0;
    await fc.assert(
      fc.asyncProperty(trial, async (input) => {
        state.runs = 0;
        state.fail = input.handlerFails;
        const init: RequestInit = { method: input.verb, headers: headersOf(input) };
        if (input.verb !== 'GET') init.body = input.payload as BodyInit;
        const response = await fetch(`${server.baseUrl}/webhooks/kyc`, init).catch((error: unknown) => {
          // Name the network-level cause, so a failure here is diagnosable from the fast-check report.
          const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
          throw new Error(
            `fetch failed (${cause}) for ${input.verb} with headers ${Object.keys(input.extra).join(',')}`,
          );
        });
        checkAnswer(input, response.status, await response.text(), state.runs);
        totalRuns += state.runs;
      }),
      { numRuns: 150, examples: [...handledTrials] },
    );
    expect(totalRuns).toBeGreaterThan(0);
  });
});
