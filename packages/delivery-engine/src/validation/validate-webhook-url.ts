import { WEBHOOK_RESPONSE_DEADLINE_MS } from '@kyc/contracts';
import type { ResolvedAddress, Resolver } from '../transport/types.js';
import { createAddressPolicy, InvalidAllowlistError } from './address-policy.js';
import { systemResolver } from './system-resolver.js';
import { vetUrl, type WebhookUrlErrorCode } from './vet-url.js';

/** Options of {@link validateWebhookUrl}. */
export interface ValidateWebhookUrlOptions {
  /** Default: the operating system's resolver. */
  resolver?: Resolver;
  /** CIDRs that may be reached although not public; cloud metadata stays blocked unless named exactly. */
  allowPrivateNetworks?: readonly string[];
  signal?: AbortSignal;
  /** How long the lookup may take (default WEBHOOK_RESPONSE_DEADLINE_MS, the attempt deadline). */
  timeoutMs?: number;
}

/** The answer of {@link validateWebhookUrl}. */
export type WebhookUrlValidation =
  | { ok: true; url: URL; addresses: ResolvedAddress[] }
  | { ok: false; code: WebhookUrlErrorCode; message: string };

/**
 * Checks a company's webhook URL at configuration time: `https:` only, no userinfo, and a host
 * that is, or resolves only to, public unicast addresses (see `classifyIp` for every range and
 * IPv6 transition form refused). A name with any forbidden answer is refused. The transport
 * applies the same check again at send time and dials only the vetted address. Never throws;
 * messages name the host but never the path, query or userinfo, which may carry secrets.
 *
 * @example
 * ```ts
 * const result = await validateWebhookUrl('https://hooks.example.com/kyc');
 * if (!result.ok) console.error(result.code, result.message);
 * ```
 */
export async function validateWebhookUrl(
  url: string,
  options: ValidateWebhookUrlOptions = {},
): Promise<WebhookUrlValidation> {
  let policy: ReturnType<typeof createAddressPolicy>;
  try {
    policy = createAddressPolicy(options.allowPrivateNetworks);
  } catch (error) {
    if (error instanceof InvalidAllowlistError) return { ok: false, code: 'invalid_option', message: error.message };
    throw error;
  }
  const timeoutMs = options.timeoutMs ?? WEBHOOK_RESPONSE_DEADLINE_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    return { ok: false, code: 'invalid_option', message: 'timeoutMs must be a positive number of milliseconds' };
  }
  if (options.signal?.aborted) return { ok: false, code: 'aborted', message: 'validation was aborted before it began' };
  // Made only when a name is looked up: an IP-literal URL costs no timer.
  const signal = () => {
    const timeout = AbortSignal.timeout(timeoutMs);
    return options.signal === undefined ? timeout : AbortSignal.any([options.signal, timeout]);
  };
  const result = await vetUrl(url, {
    policy,
    resolver: options.resolver ?? systemResolver,
    signal,
    abortCode: () => (options.signal?.aborted ? 'aborted' : 'dns_timeout'),
  });
  return result.ok ? { ok: true, url: result.url, addresses: result.addresses } : result;
}
