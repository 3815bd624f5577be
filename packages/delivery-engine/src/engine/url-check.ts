import { DeliveryEngineError } from '../delivery-engine-error.js';
import { validateWebhookUrl } from '../validation/validate-webhook-url.js';
import type { DeliveryEngineOptions } from './options.js';

/** How long enqueue waits for DNS: a slow resolver must not hold the caller's transaction for 30 s. */
const ENQUEUE_LOOKUP_TIMEOUT_MS = 5000;

/** Lookup failures that may heal by themselves: the event is stored and the send-time check retries. */
const TRANSIENT_CODES: ReadonlySet<string> = new Set(['dns_error', 'dns_timeout']);

/**
 * The enqueue-time URL check. A URL the policy forbids (not https, userinfo, a blocked address)
 * is refused; a name that does not resolve right now is accepted, because refusing would lose
 * the event over a DNS hiccup: the transport checks again before every attempt, records a
 * `dns_error` and the schedule retries it.
 */
export async function checkUrlAtEnqueue<T>(url: unknown, options: DeliveryEngineOptions<T>): Promise<URL> {
  if (typeof url !== 'string') throw new DeliveryEngineError('invalid_url', 'event.url: expected a string');
  const result = await validateWebhookUrl(url, {
    timeoutMs: ENQUEUE_LOOKUP_TIMEOUT_MS,
    ...(options.resolver !== undefined && { resolver: options.resolver }),
    ...(options.allowPrivateNetworks !== undefined && { allowPrivateNetworks: options.allowPrivateNetworks }),
  });
  if (result.ok) return result.url;
  if (TRANSIENT_CODES.has(result.code)) return new URL(url);
  if (result.code === 'invalid_option') {
    throw new DeliveryEngineError('invalid_option', `allowPrivateNetworks: ${result.message}`);
  }
  throw new DeliveryEngineError('invalid_url', `event.url: ${result.message}`);
}
