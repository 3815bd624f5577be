import { describeError } from './classify-error.js';
import { createTransport } from './create-transport.js';
import type { AttemptRequest, AttemptResult, TransportOptions } from './types.js';

/**
 * Sends one webhook attempt with a transport made for it and closed after it: convenient for
 * one-off sends and tests. A long-lived sender (the engine) should hold one `createTransport()`
 * instead, so connections are pooled across attempts. Never throws: bad options come back as
 * an `invalid_url` outcome whose message names the option.
 *
 * @example
 * ```ts
 * const result = await sendAttempt({ url: 'https://hooks.example.com/kyc', headers, body });
 * console.log(result.outcome, result.status, result.dialedAddress, result.latencyMs);
 * ```
 */
export async function sendAttempt(request: AttemptRequest, options?: TransportOptions): Promise<AttemptResult> {
  let transport: ReturnType<typeof createTransport>;
  try {
    transport = createTransport(options);
  } catch (error) {
    return {
      outcome: 'invalid_url',
      latencyMs: 0,
      errorMessage: `transport options are invalid: ${describeError(error)}`,
    };
  }
  try {
    return await transport.send(request);
  } finally {
    await transport.close();
  }
}
