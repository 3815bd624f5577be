import { describe, expect, it } from 'vitest';
import { runtimeNetworkFailure } from './network-failure.js';

// The shapes each runtime's fetch rejects with on a refused connection (recorded from Node 24,
// Bun 1.3 and Deno 2.9); test/loopback.test.ts sees the real ones on each runtime.
describe('runtimeNetworkFailure', () => {
  it("names Node's socket error code from the cause", () => {
    const socket = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    const error = new TypeError('fetch failed', { cause: socket });
    expect(runtimeNetworkFailure(error)).toEqual({ cause: error, text: 'fetch failed (ECONNREFUSED)' });
  });

  it("keeps Bun's message, which already carries the code, once", () => {
    const error = Object.assign(new TypeError('ECONNREFUSED: Unable to connect.'), { code: 'ECONNREFUSED' });
    expect(runtimeNetworkFailure(error).text).toBe('ECONNREFUSED: Unable to connect.');
  });

  it("adds Deno's cause message, the only place it says what happened", () => {
    const inner = new Error(
      'error sending request for url (http://127.0.0.1:9/): client error (Connect): tcp connect error: Connection refused (os error 111)',
    );
    const error = new TypeError('fetch failed', { cause: inner });
    expect(runtimeNetworkFailure(error).text).toBe(
      'fetch failed: error sending request for url (http://127.0.0.1:9/): client error (Connect): tcp connect error: Connection refused (os error 111)',
    );
  });

  it('describes a thrown non-error and a bare error', () => {
    expect(runtimeNetworkFailure('boom')).toEqual({ cause: 'boom', text: 'boom' });
    expect(runtimeNetworkFailure(new TypeError('Failed to fetch')).text).toBe('Failed to fetch');
  });
});
