import { createOwnTransport } from './own-transport.js';
import type { AttemptRequest, AttemptResult, TransportOptions } from './types.js';

/** A reusable sender of attempts: connection pools live as long as it does. */
export interface Transport {
  /** Sends one POST; never throws. `signal` aborts this attempt only (in addition to `options.signal`). */
  send(request: AttemptRequest, signal?: AbortSignal): Promise<AttemptResult>;
  /** Closes idle connections and lets requests in flight finish. */
  close(): Promise<void>;
}

/**
 * Creates the sender of webhook attempts. Each `send` vets the URL again (https only, host
 * resolved once, every answer checked by the SSRF policy), dials exactly the first vetted
 * address over a pooled connection kept per (origin, address), POSTs the body, and reads at
 * most RESPONSE_SNIPPET_MAX_BYTES of the answer. One deadline covers the lookup, connect, TLS,
 * request, headers and body. Redirects are never followed; proxy environment variables are
 * never read (only `options.proxy`); only Node's roots plus `options.tls.ca` are trusted.
 *
 * @throws DeliveryEngineError `invalid_option` for a bad deadline, allowlist, CA or proxy URL.
 * @example
 * ```ts
 * const transport = createTransport({ deadlineMs: 30_000 });
 * const result = await transport.send({ url: 'https://hooks.example.com/kyc', headers, body });
 * if (result.outcome !== 'delivered') console.warn(result.outcome, result.errorMessage);
 * await transport.close();
 * ```
 */
export function createTransport(options: TransportOptions = {}): Transport {
  return createOwnTransport(options);
}
