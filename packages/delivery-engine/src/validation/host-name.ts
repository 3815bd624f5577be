/** Most octets a DNS name may have (RFC 1035), written without its trailing dot. */
const MAX_NAME_LENGTH = 253;

/** A host name judged before any lookup. */
export type HostNameCheck =
  | { readonly ok: true; readonly name: string; readonly localhost: boolean }
  | { readonly ok: false; readonly reason: string };

/**
 * Checks the shape of a host name taken from a parsed URL (already lower-case and punycoded)
 * and strips one trailing dot, since `example.com.` and `example.com` name the same host.
 * `localhost` and every `*.localhost` name are flagged: RFC 6761 fixes them to loopback, so
 * they are never sent to DNS (a resolver could otherwise answer anything for them).
 *
 * @example
 * ```ts
 * checkHostName('api.localhost.'); // { ok: true, name: 'api.localhost', localhost: true }
 * ```
 */
export function checkHostName(hostname: string): HostNameCheck {
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  if (name.length === 0 || name.length > MAX_NAME_LENGTH) {
    return { ok: false, reason: `host name must be 1 to ${MAX_NAME_LENGTH} characters long` };
  }
  if (name.split('.').some((label) => label.length === 0 || label.length > 63)) {
    return { ok: false, reason: `host "${name.slice(0, 80)}" has an empty or over-long label` };
  }
  return { ok: true, name, localhost: name === 'localhost' || name.endsWith('.localhost') };
}

/** The fixed answers of a `localhost` name (RFC 6761 §6.3). */
export const LOCALHOST_ADDRESSES: readonly string[] = ['127.0.0.1', '::1'];
