import ipaddr from 'ipaddr.js';
import type { ResolvedAddress } from '../transport/types.js';
import { classifyIp } from './classify-ip.js';
import { ipv4FromGroups, parseIp } from './parse-ip.js';

/** The answer of `AddressPolicy.check`. */
export type AddressCheck =
  | { readonly ok: true; readonly address: ResolvedAddress }
  | { readonly ok: false; readonly reason: string };

/** Decides, for one address, whether the engine may connect to it. */
export interface AddressPolicy {
  check(address: string): AddressCheck;
}

/** A CIDR of `allowPrivateNetworks` that does not parse. */
export class InvalidAllowlistError extends Error {
  override readonly name = 'InvalidAllowlistError';
}

const MAPPED = ipaddr.parseCIDR('::ffff:0:0/96');

function parseAllowlist(cidrs: readonly string[]): Array<[ipaddr.IPv4 | ipaddr.IPv6, number]> {
  if (!Array.isArray(cidrs)) throw new InvalidAllowlistError('allowPrivateNetworks must be an array of CIDR strings');
  return cidrs.map((cidr, index) => {
    if (typeof cidr !== 'string' || !ipaddr.isValidCIDR(cidr)) {
      throw new InvalidAllowlistError(
        `allowPrivateNetworks[${index}] is not a CIDR such as '127.0.0.0/8' or '::1/128' (got ${typeof cidr === 'string' ? JSON.stringify(cidr.slice(0, 60)) : typeof cidr})`,
      );
    }
    const [address, bits] = ipaddr.parseCIDR(cidr);
    // `::ffff:a.b.c.d/n` would never match anything below (mapped answers are unwrapped).
    if (address instanceof ipaddr.IPv6 && address.match(MAPPED) && bits >= 96) {
      return [ipv4FromGroups(address.parts[6] ?? 0, address.parts[7] ?? 0), bits - 96];
    }
    return [address, bits];
  });
}

/**
 * The SSRF address policy: public unicast only, plus the CIDRs of `allowPrivateNetworks`.
 * Cloud metadata addresses stay blocked under a broad allowlist; only a CIDR naming exactly
 * that one address (`169.254.169.254/32`) lets them through. IPv4-mapped IPv6 answers
 * (`::ffff:127.0.0.1`) are matched as the IPv4 address they connect to.
 *
 * @throws InvalidAllowlistError when an allowlist entry is not a CIDR.
 * @example
 * ```ts
 * const policy = createAddressPolicy(['127.0.0.0/8']);
 * policy.check('127.0.0.1').ok; // true
 * policy.check('169.254.169.254').ok; // false
 * ```
 */
export function createAddressPolicy(allowPrivateNetworks: readonly string[] = []): AddressPolicy {
  const allow = parseAllowlist(allowPrivateNetworks);
  const allowed = (ip: ipaddr.IPv4 | ipaddr.IPv6, metadata: boolean): boolean => {
    let target = ip;
    if (ip instanceof ipaddr.IPv6 && ip.match(MAPPED)) target = ipv4FromGroups(ip.parts[6] ?? 0, ip.parts[7] ?? 0);
    const full = target.kind() === 'ipv4' ? 32 : 128;
    return allow.some(
      ([network, bits]) =>
        network.kind() === target.kind() && target.match(network, bits) && (!metadata || bits === full),
    );
  };
  return {
    check(address) {
      const parsed = typeof address === 'string' ? parseIp(address) : undefined;
      if (parsed === undefined) {
        return { ok: false, reason: `${JSON.stringify(String(address).slice(0, 80))} is not an IP address` };
      }
      const verdict = classifyIp(parsed);
      const family = parsed.ip.kind() === 'ipv4' ? 4 : 6;
      const text = parsed.ip.toString();
      if (verdict.public) return { ok: true, address: { address: text, family } };
      if (parsed.zoneId === undefined && allowed(parsed.ip, verdict.metadata)) {
        return { ok: true, address: { address: text, family } };
      }
      const hint = verdict.metadata
        ? `; it stays blocked unless allowPrivateNetworks names it exactly ('${text}/${family === 4 ? 32 : 128}')`
        : allow.length > 0
          ? '; it is not in allowPrivateNetworks'
          : '';
      return { ok: false, reason: `${text} is ${verdict.range}, not a public unicast address${hint}` };
    },
  };
}
