import ipaddr from 'ipaddr.js';
import { ipv4FromGroups, type ParsedIp } from './parse-ip.js';

/** Why an address is not a public unicast destination. */
export interface BlockedVerdict {
  readonly public: false;
  /** Human-readable range, e.g. `private network (10.0.0.0/8)`. */
  readonly range: string;
  /** A cloud metadata service: stays blocked under a private-network allowlist unless named exactly. */
  readonly metadata: boolean;
}

/** Public unicast, or blocked with the range that matched. */
export type AddressVerdict = { readonly public: true } | BlockedVerdict;

type Range = readonly [cidr: string, label: string];

// Our own table on top of ipaddr.js's parser: its `range()` calls IPv4-compatible and ISATAP
// forms plain `unicast`, and it knows nothing of cloud metadata. Order matters: the first
// match names the range (a /32 inside a /4 is listed before it).
const IPV4_BLOCKED: readonly Range[] = [
  ['0.0.0.0/8', '"this network"'],
  ['10.0.0.0/8', 'private network'],
  ['100.64.0.0/10', 'carrier-grade NAT shared space'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private network'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation (TEST-NET-1)'],
  ['192.88.99.0/24', 'deprecated 6to4 relay anycast'],
  ['192.168.0.0/16', 'private network'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation (TEST-NET-2)'],
  ['203.0.113.0/24', 'documentation (TEST-NET-3)'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved'],
];

const IPV6_BLOCKED: readonly Range[] = [
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::/96', 'deprecated IPv4-compatible'],
  ['64:ff9b:1::/48', 'local-use NAT64'],
  ['100::/64', 'discard-only'],
  ['2001:2::/48', 'benchmarking'],
  ['2001:10::/28', 'ORCHID'],
  ['2001:20::/28', 'ORCHIDv2'],
  ['2001:db8::/32', 'documentation'],
  ['2001::/23', 'IETF protocol assignments'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'SRv6 segment identifiers'],
  ['fc00::/7', 'unique local (ULA)'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'deprecated site-local'],
  ['ff00::/8', 'multicast'],
];

/**
 * Cloud metadata and host-platform endpoints: AWS/GCP/Azure/OpenStack IMDS, AWS ECS task
 * metadata, Alibaba Cloud, Oracle Cloud, the AWS IPv6 IMDS, and Azure's WireServer (public
 * space, so only this list stops it).
 */
export const METADATA_ADDRESSES: readonly string[] = [
  '169.254.169.254',
  '169.254.170.2',
  '169.254.170.23',
  '100.100.100.200',
  '192.0.0.192',
  '168.63.129.16',
  'fd00:ec2::254',
];

type Compiled = readonly [ipaddr.IPv4 | ipaddr.IPv6, number, string];
const compile = (ranges: readonly Range[]): Compiled[] =>
  ranges.map(([cidr, label]) => {
    const [address, bits] = ipaddr.parseCIDR(cidr);
    return [address, bits, `${label} (${cidr})`];
  });
const V4 = compile(IPV4_BLOCKED);
const V6 = compile(IPV6_BLOCKED);
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');
const MAPPED = ipaddr.parseCIDR('::ffff:0:0/96');
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');
const SIX_TO_FOUR = ipaddr.parseCIDR('2002::/16');
const TEREDO = ipaddr.parseCIDR('2001::/32');
const METADATA = new Set(METADATA_ADDRESSES.map((text) => ipaddr.parse(text).toNormalizedString()));

const PUBLIC: AddressVerdict = { public: true };

function matchTable(ip: ipaddr.IPv4 | ipaddr.IPv6, table: readonly Compiled[]): string | undefined {
  for (const [network, bits, label] of table) {
    if (ip.kind() === network.kind() && ip.match(network, bits)) return label;
  }
  return undefined;
}

function blocked(range: string, metadata = false): BlockedVerdict {
  return { public: false, range, metadata };
}

/** An IPv6 form that carries an IPv4 address: blocked when the embedded address is. */
function embedded(form: string, inner: ipaddr.IPv4): AddressVerdict {
  const verdict = classifyIpv4(inner);
  if (verdict.public) return verdict;
  return blocked(`${form} embedding ${inner.toString()}, ${verdict.range}`, verdict.metadata);
}

function classifyIpv4(ip: ipaddr.IPv4): AddressVerdict {
  if (METADATA.has(ip.toNormalizedString())) return blocked('cloud metadata service', true);
  const label = matchTable(ip, V4);
  return label === undefined ? PUBLIC : blocked(label);
}

function classifyIpv6(ip: ipaddr.IPv6): AddressVerdict {
  const [, p1 = 0, p2 = 0, p3 = 0, p4 = 0, p5 = 0, p6 = 0, p7 = 0] = ip.parts;
  if (METADATA.has(ip.toNormalizedString())) return blocked('cloud metadata service', true);
  if (ip.match(MAPPED)) return embedded('IPv4-mapped (::ffff:0:0/96)', ipv4FromGroups(p6, p7));
  // ISATAP interface identifiers (…:0000:5efe:a.b.c.d, u/g bits may be set) tunnel to the
  // embedded IPv4 address whatever the prefix, so check it first.
  if ((p4 & 0xfcff) === 0 && p5 === 0x5efe) {
    const verdict = embedded('ISATAP (::5efe:0:0/96)', ipv4FromGroups(p6, p7));
    if (!verdict.public) return verdict;
  }
  if (ip.match(NAT64)) return embedded('NAT64 (64:ff9b::/96)', ipv4FromGroups(p6, p7));
  if (ip.match(SIX_TO_FOUR)) return embedded('6to4 (2002::/16)', ipv4FromGroups(p1, p2));
  if (ip.match(TEREDO)) {
    // Teredo: server IPv4 in groups 2–3, client IPv4 inverted ("obfuscated") in groups 6–7.
    const client = embedded('Teredo client (2001::/32)', ipv4FromGroups(~p6 & 0xffff, ~p7 & 0xffff));
    if (!client.public) return client;
    return embedded('Teredo server (2001::/32)', ipv4FromGroups(p2, p3));
  }
  const label = matchTable(ip, V6);
  if (label !== undefined) return blocked(label);
  if (!ip.match(GLOBAL_UNICAST)) return blocked('outside global unicast (2000::/3)');
  return PUBLIC;
}

/**
 * Decides whether an address is a public unicast destination, naming the range when it is not.
 * Every IPv6 form that embeds an IPv4 address (mapped, NAT64, 6to4, Teredo, ISATAP) is judged
 * by the embedded address; IPv4-compatible `::a.b.c.d` is deprecated and always blocked.
 *
 * @example
 * ```ts
 * classifyIp(parseIp('2002:a00:1::')!); // { public: false, range: '6to4 (2002::/16) embedding 10.0.0.1, …' }
 * ```
 */
export function classifyIp(parsed: ParsedIp): AddressVerdict {
  if (parsed.zoneId !== undefined) return blocked('scoped address with a zone id');
  const { ip } = parsed;
  return ip instanceof ipaddr.IPv4 ? classifyIpv4(ip) : classifyIpv6(ip);
}
