import { isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

/** An IP address parsed for classification, with the zone id (`%eth0`) kept apart. */
export interface ParsedIp {
  readonly ip: ipaddr.IPv4 | ipaddr.IPv6;
  /** Present when the text carried an IPv6 zone id: such an address is only meaningful on a local link. */
  readonly zoneId?: string;
}

/**
 * Parses a strict IP address (dotted-quad IPv4, or IPv6 with optional brackets and zone id).
 * Returns `undefined` for anything else, including short or octal IPv4 forms: those are only
 * accepted through `new URL()`, which normalises them first.
 *
 * `ipaddr.js` reads `::1.2.3.4` (IPv4-compatible) as `::ffff:1.2.3.4` (mapped), so IPv6 text is
 * first re-serialised by the WHATWG URL parser, which writes every IPv6 address in plain hex.
 *
 * @example
 * ```ts
 * parseIp('[::1.2.3.4]')?.ip.toString(); // '::102:304'
 * ```
 */
export function parseIp(text: string): ParsedIp | undefined {
  if (typeof text !== 'string') return undefined;
  let value = text;
  if (value.startsWith('[') && value.endsWith(']')) value = value.slice(1, -1);
  if (isIPv4(value)) return { ip: ipaddr.IPv4.parse(value) };
  const percent = value.indexOf('%');
  const zoneId = percent === -1 ? undefined : value.slice(percent + 1);
  const bare = percent === -1 ? value : value.slice(0, percent);
  if (!isIPv6(bare)) return undefined;
  let hex: string;
  try {
    hex = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
  if (!ipaddr.IPv6.isValid(hex)) return undefined;
  const ip = ipaddr.IPv6.parse(hex);
  return zoneId === undefined ? { ip } : { ip, zoneId };
}

/** The IPv4 address held in two 16-bit IPv6 groups. */
export function ipv4FromGroups(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}
