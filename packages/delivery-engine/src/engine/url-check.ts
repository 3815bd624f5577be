import { DeliveryEngineError } from '../delivery-engine-error.js';
import { createAddressPolicy } from '../validation/address-policy.js';
import { systemResolver } from '../validation/system-resolver.js';
import { vetUrl } from '../validation/vet-url.js';
import type { DeliveryEngineOptions } from './options.js';

/** How long enqueue waits for DNS: a slow resolver must not hold the caller's transaction for 30 s. */
const ENQUEUE_LOOKUP_TIMEOUT_MS = 5000;

/** Lookup failures that may heal by themselves: the event is stored and the send-time check retries. */
const TRANSIENT_CODES: ReadonlySet<string> = new Set(['dns_error', 'dns_timeout']);

/**
 * The enqueue-time URL check, with the engine's policy built once. A URL the policy forbids
 * (not https, userinfo, a blocked address) is refused; a name that does not resolve right now
 * is accepted, because refusing would lose the event over a DNS hiccup: the transport checks
 * again before every attempt, records a `dns_error` and the schedule retries it.
 */
export function createUrlCheck<T>(options: DeliveryEngineOptions<T>): (url: unknown) => Promise<URL> {
  // The allowlist was already checked by the transport, built first in createDeliveryEngine.
  const policy = createAddressPolicy(options.allowPrivateNetworks);
  const resolver = options.resolver ?? systemResolver;
  return async (url) => {
    if (typeof url !== 'string') throw new DeliveryEngineError('invalid_url', 'event.url: expected a string');
    const result = await vetUrl(url, {
      policy,
      resolver,
      // Made only when a name is looked up: an IP-literal URL costs no timer.
      signal: () => AbortSignal.timeout(ENQUEUE_LOOKUP_TIMEOUT_MS),
      abortCode: () => 'dns_timeout',
    });
    if (result.ok) return result.url;
    if (TRANSIENT_CODES.has(result.code)) return new URL(url);
    throw new DeliveryEngineError('invalid_url', `event.url: ${result.message}`);
  };
}
