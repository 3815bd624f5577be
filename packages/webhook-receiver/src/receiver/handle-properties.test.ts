import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkAnswer, handledTrials, headersOf, propertyReceiver, trial } from '../../test/support/properties.js';

describe('handle (property)', () => {
  it('never throws, answers 500 only when the handler failed, and never runs the handler without the key', async () => {
    const { receiver, state } = propertyReceiver();
    let totalRuns = 0;
    await fc.assert(
      fc.asyncProperty(trial, async (input) => {
        state.runs = 0;
        state.fail = input.handlerFails;
        const init: RequestInit = { method: input.verb, headers: headersOf(input) };
        if (input.verb !== 'GET') init.body = input.payload as BodyInit;
        const response = await receiver.handle(new Request('http://r.test/', init));
        checkAnswer(input, response.status, await response.text(), state.runs);
        totalRuns += state.runs;
      }),
      { numRuns: 400, examples: [...handledTrials] },
    );
    // The generators do reach the handler: the property is not vacuous.
    expect(totalRuns).toBeGreaterThan(0);
  });
});
