import { describe, expect, it } from 'vitest';
import { type Resolver, validateWebhookUrl } from '../src/index.js';

// IP literals must never reach a resolver: this one fails the test if it is asked anything.
const refusingResolver: Resolver = {
  resolve(hostname) {
    throw new Error(`resolver must not be asked for the IP literal ${hostname}`);
  },
};

const check = (host: string, allowPrivateNetworks?: readonly string[]) =>
  validateWebhookUrl(`https://${host}/hooks/kyc?token=s3cr3t-query`, {
    resolver: refusingResolver,
    ...(allowPrivateNetworks === undefined ? {} : { allowPrivateNetworks }),
  });

// [host as written in the URL, expected verdict, a word the refusal must name]
type Row = readonly [host: string, verdict: 'ok' | 'blocked', range?: string];

const IPV4_BOUNDARIES: readonly Row[] = [
  ['0.0.0.0', 'blocked', 'this network'],
  ['0.255.255.255', 'blocked', 'this network'],
  ['1.0.0.0', 'ok'],
  ['9.255.255.255', 'ok'],
  ['10.0.0.0', 'blocked', 'private'],
  ['10.255.255.255', 'blocked', 'private'],
  ['11.0.0.0', 'ok'],
  ['100.63.255.255', 'ok'],
  ['100.64.0.0', 'blocked', 'carrier-grade'],
  ['100.127.255.255', 'blocked', 'carrier-grade'],
  ['100.128.0.0', 'ok'],
  ['126.255.255.255', 'ok'],
  ['127.0.0.1', 'blocked', 'loopback'],
  ['127.255.255.255', 'blocked', 'loopback'],
  ['128.0.0.0', 'ok'],
  ['169.253.255.255', 'ok'],
  ['169.254.0.0', 'blocked', 'link-local'],
  ['169.254.169.254', 'blocked', 'metadata'],
  ['169.254.170.2', 'blocked', 'metadata'],
  ['169.254.255.255', 'blocked', 'link-local'],
  ['169.255.0.0', 'ok'],
  ['172.15.255.255', 'ok'],
  ['172.16.0.0', 'blocked', 'private'],
  ['172.31.255.255', 'blocked', 'private'],
  ['172.32.0.0', 'ok'],
  ['191.255.255.255', 'ok'],
  ['192.0.0.0', 'blocked', 'IETF'],
  ['192.0.0.255', 'blocked', 'IETF'],
  ['192.0.1.0', 'ok'],
  ['192.0.2.0', 'blocked', 'documentation'],
  ['192.0.2.255', 'blocked', 'documentation'],
  ['192.0.3.0', 'ok'],
  ['192.88.99.1', 'blocked', '6to4 relay'],
  ['192.167.255.255', 'ok'],
  ['192.168.0.0', 'blocked', 'private'],
  ['192.168.255.255', 'blocked', 'private'],
  ['192.169.0.0', 'ok'],
  ['198.17.255.255', 'ok'],
  ['198.18.0.0', 'blocked', 'benchmarking'],
  ['198.19.255.255', 'blocked', 'benchmarking'],
  ['198.20.0.0', 'ok'],
  ['198.51.99.255', 'ok'],
  ['198.51.100.0', 'blocked', 'documentation'],
  ['198.51.100.255', 'blocked', 'documentation'],
  ['198.51.101.0', 'ok'],
  ['203.0.112.255', 'ok'],
  ['203.0.113.0', 'blocked', 'documentation'],
  ['203.0.113.255', 'blocked', 'documentation'],
  ['203.0.114.0', 'ok'],
  ['223.255.255.255', 'ok'],
  ['224.0.0.0', 'blocked', 'multicast'],
  ['239.255.255.255', 'blocked', 'multicast'],
  ['240.0.0.0', 'blocked', 'reserved'],
  ['255.255.255.254', 'blocked', 'reserved'],
  ['255.255.255.255', 'blocked', 'broadcast'],
  ['100.100.100.200', 'blocked', 'metadata'],
  ['168.63.129.16', 'blocked', 'metadata'],
  ['8.8.8.8', 'ok'],
  ['93.184.216.34', 'ok'],
];

// `new URL()` rewrites these to dotted quads; the check must see the rewritten host.
const IPV4_SPELLINGS: readonly Row[] = [
  ['0x7f000001', 'blocked', 'loopback'],
  ['2130706433', 'blocked', 'loopback'],
  ['017700000001', 'blocked', 'loopback'],
  ['127.1', 'blocked', 'loopback'],
  ['0177.0.0.1', 'blocked', 'loopback'],
  ['0x7f.0.0.1', 'blocked', 'loopback'],
  ['0x7F.1', 'blocked', 'loopback'],
  ['１２７.０.０.１', 'blocked', 'loopback'],
  ['0', 'blocked', 'this network'],
  ['10.1', 'blocked', 'private'],
  ['0x0a000001', 'blocked', 'private'],
  ['3232235521', 'blocked', 'private'],
  ['0xA9FEA9FE', 'blocked', 'metadata'],
  ['0251.0376.0251.0376', 'blocked', 'metadata'],
  ['134744072', 'ok'],
  ['0x08080808', 'ok'],
];

const IPV6: readonly Row[] = [
  ['[::]', 'blocked', 'unspecified'],
  ['[::1]', 'blocked', 'loopback'],
  ['[0:0:0:0:0:0:0:1]', 'blocked', 'loopback'],
  ['[::2]', 'blocked', 'IPv4-compatible'],
  ['[::ffff:127.0.0.1]', 'blocked', 'loopback'],
  ['[::ffff:7f00:1]', 'blocked', 'loopback'],
  ['[::ffff:10.0.0.1]', 'blocked', 'private'],
  ['[::ffff:169.254.169.254]', 'blocked', 'metadata'],
  ['[::ffff:8.8.8.8]', 'ok'],
  ['[::127.0.0.1]', 'blocked', 'IPv4-compatible'],
  ['[::8.8.8.8]', 'blocked', 'IPv4-compatible'],
  ['[0:0:0:0:0:0:10.0.0.1]', 'blocked', 'IPv4-compatible'],
  ['[64:ff9b::10.0.0.1]', 'blocked', 'NAT64'],
  ['[64:ff9b::a00:1]', 'blocked', 'NAT64'],
  ['[64:ff9b::127.0.0.1]', 'blocked', 'NAT64'],
  ['[64:ff9b::169.254.169.254]', 'blocked', 'metadata'],
  ['[64:ff9b::8.8.8.8]', 'ok'],
  ['[64:ff9b:1::8.8.8.8]', 'blocked', 'local-use NAT64'],
  ['[64:ff9b:1:ffff:ffff:ffff:ffff:ffff]', 'blocked', 'local-use NAT64'],
  ['[2002:a00:1::]', 'blocked', '6to4'],
  ['[2002:7f00:1::1]', 'blocked', '6to4'],
  ['[2002:c0a8:101::1]', 'blocked', '6to4'],
  ['[2002:a9fe:a9fe::]', 'blocked', 'metadata'],
  ['[2002:808:808::1]', 'ok'],
  // Teredo: client IPv4 is stored bit-inverted in the last 32 bits.
  ['[2001:0:4136:e378:8000:63bf:f5ff:fffe]', 'blocked', 'Teredo client'],
  ['[2001:0:4136:e378:8000:63bf:80ff:fffe]', 'blocked', 'Teredo client'],
  ['[2001:0:4136:e378:8000:63bf:3fff:fdd2]', 'blocked', 'documentation'],
  ['[2001:0:a00:1:8000:63bf:f7f7:f7f7]', 'blocked', 'Teredo server'],
  ['[2001:0:4136:e378:8000:63bf:f7f7:f7f7]', 'ok'],
  ['[::5efe:10.0.0.1]', 'blocked', 'ISATAP'],
  ['[2001:4860::5efe:10.0.0.1]', 'blocked', 'ISATAP'],
  ['[2001:4860::200:5efe:c0a8:101]', 'blocked', 'ISATAP'],
  ['[2001:4860::5efe:8.8.8.8]', 'ok'],
  ['[fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]', 'blocked', 'outside global unicast'],
  ['[fc00::]', 'blocked', 'unique local'],
  ['[fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]', 'blocked', 'unique local'],
  ['[fd00:ec2::254]', 'blocked', 'metadata'],
  ['[fe80::]', 'blocked', 'link-local'],
  ['[febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff]', 'blocked', 'link-local'],
  ['[fec0::1]', 'blocked', 'site-local'],
  ['[feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]', 'blocked', 'site-local'],
  ['[ff00::]', 'blocked', 'multicast'],
  ['[ff02::1]', 'blocked', 'multicast'],
  ['[100::1]', 'blocked', 'discard'],
  ['[100:0:0:1::]', 'blocked', 'outside global unicast'],
  ['[2001::1]', 'blocked', 'Teredo'],
  ['[2001:2::1]', 'blocked', 'benchmarking'],
  ['[2001:2:0:ffff::1]', 'blocked', 'benchmarking'],
  ['[2001:3::1]', 'blocked', 'IETF'],
  ['[2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff]', 'blocked', 'IETF'],
  ['[2001:200::1]', 'ok'],
  ['[2001:10::1]', 'blocked', 'ORCHID'],
  ['[2001:db7:ffff:ffff:ffff:ffff:ffff:ffff]', 'ok'],
  ['[2001:db8::]', 'blocked', 'documentation'],
  ['[2001:db8:ffff:ffff:ffff:ffff:ffff:ffff]', 'blocked', 'documentation'],
  ['[2001:db9::]', 'ok'],
  ['[1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]', 'blocked', 'outside global unicast'],
  ['[2000::1]', 'ok'],
  ['[3ffe:ffff::1]', 'ok'],
  ['[3fff::1]', 'blocked', 'documentation'],
  ['[3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff]', 'blocked', 'documentation'],
  ['[4000::1]', 'blocked', 'outside global unicast'],
  ['[5f00::1]', 'blocked', 'SRv6'],
  ['[2606:4700:4700::1111]', 'ok'],
  ['[2a00:1450:4001:81b::200e]', 'ok'],
];

const NAMES: readonly Row[] = [
  ['localhost', 'blocked', 'loopback'],
  ['localhost.', 'blocked', 'loopback'],
  ['LOCALHOST', 'blocked', 'loopback'],
  ['LocalHost.', 'blocked', 'loopback'],
  ['api.localhost', 'blocked', 'loopback'],
  ['a.b.localhost.', 'blocked', 'loopback'],
  ['localhost:8443', 'blocked', 'loopback'],
  // Spellings the URL parser folds into localhost or a loopback literal.
  ['ｌｏｃａｌｈｏｓｔ', 'blocked', 'loopback'],
  ['localhost%2e', 'blocked', 'loopback'],
  ['%6c%6fcalhost', 'blocked', 'loopback'],
  ['local%E2%80%8Bhost', 'blocked', 'loopback'],
  ['127%2e0%2e0%2e1', 'blocked', 'loopback'],
];

describe('SSRF policy over URL literals (no resolver involved)', () => {
  const rows = [...IPV4_BOUNDARIES, ...IPV4_SPELLINGS, ...IPV6, ...NAMES].map(
    ([host, verdict, range]): [string, string, string] => [host, verdict, range ?? ''],
  );

  it.each(rows)('%s → %s', async (host, verdict, range) => {
    const result = await check(host);
    if (verdict === 'ok') {
      expect(result).toMatchObject({ ok: true });
      return;
    }
    expect(result).toMatchObject({ ok: false, code: 'blocked_address' });
    if (result.ok) return;
    expect(range).not.toBe('');
    expect(result.message).toContain(range);
    // Messages name the host, never the path or the query (which can hold a token).
    expect(result.message).not.toContain('s3cr3t');
    expect(result.message).not.toContain('/hooks');
  });

  it('returns the normalised literal as the only address', async () => {
    expect(await check('134744072')).toMatchObject({ ok: true, addresses: [{ address: '8.8.8.8', family: 4 }] });
    const v6 = await check('[2606:4700:4700:0:0:0:0:1111]');
    expect(v6).toMatchObject({ ok: true, addresses: [{ address: '2606:4700:4700::1111', family: 6 }] });
    if (v6.ok) expect(v6.url.hostname).toBe('[2606:4700:4700::1111]');
  });
});

describe('URL shape', () => {
  it.each([
    ['http://8.8.8.8/', 'not_https'],
    ['HTTP://8.8.8.8/', 'not_https'],
    ['ftp://8.8.8.8/', 'not_https'],
    ['javascript:alert(1)', 'not_https'],
    ['wss://8.8.8.8/', 'not_https'],
    ['https://user:pa55word-xyz@8.8.8.8/', 'userinfo'],
    ['https://:pa55word-xyz@8.8.8.8/', 'userinfo'],
    ['https://pa55word-xyz@8.8.8.8/', 'userinfo'],
    ['https://[fe80::1%25eth0]/', 'invalid_url'],
    ['https://[2606:4700::1%25eth0]/', 'invalid_url'],
    ['https://[::1/', 'invalid_url'],
    ['https://1.2.3.4.5/', 'invalid_url'],
    ['https://256.0.0.1/', 'invalid_url'],
    ['https://a..b.example/', 'invalid_url'],
    ['https://localhost../', 'invalid_url'],
    ['https://8.8.8.8:0/', 'invalid_url'],
    [`https://${'a'.repeat(64)}.example/`, 'invalid_url'],
    [`https://example.com/${'x'.repeat(5000)}`, 'invalid_url'],
    ['/relative/path', 'invalid_url'],
    ['pa55word-xyz not a url', 'invalid_url'],
    ['', 'invalid_url'],
  ])('%s → %s', async (url, code) => {
    const result = await validateWebhookUrl(url, { resolver: refusingResolver });
    expect(result).toMatchObject({ ok: false, code });
    if (!result.ok) expect(result.message).not.toContain('pa55word');
  });

  it('answers non-strings with not_a_string instead of throwing', async () => {
    for (const value of [undefined, null, 42, {}, ['https://8.8.8.8/']]) {
      expect(await validateWebhookUrl(value as unknown as string)).toMatchObject({ ok: false, code: 'not_a_string' });
    }
  });

  it('accepts a public https URL with a port, path and query, and keeps them', async () => {
    const result = await check('8.8.8.8:8443');
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.url.href).toBe('https://8.8.8.8:8443/hooks/kyc?token=s3cr3t-query');
  });
});

describe('allowPrivateNetworks', () => {
  it('lets listed private ranges through and nothing else', async () => {
    expect(await check('10.1.2.3', ['10.0.0.0/8'])).toMatchObject({ ok: true });
    expect(await check('192.168.1.1', ['10.0.0.0/8'])).toMatchObject({ ok: false, code: 'blocked_address' });
    expect(await check('[::ffff:10.1.2.3]', ['10.0.0.0/8'])).toMatchObject({ ok: true });
    expect(await check('[fd12::1]', ['fd00::/8'])).toMatchObject({ ok: true });
    // A NAT64 address is dialled as IPv6 through a gateway: an IPv4 allowlist does not cover it.
    expect(await check('[64:ff9b::a01:203]', ['10.0.0.0/8'])).toMatchObject({ ok: false });
  });

  it('keeps cloud metadata blocked unless the exact address is named', async () => {
    for (const broad of [['169.254.0.0/16'], ['0.0.0.0/0'], ['169.254.169.0/24']]) {
      const result = await check('169.254.169.254', broad);
      expect(result).toMatchObject({ ok: false, code: 'blocked_address' });
      if (!result.ok) expect(result.message).toContain("'169.254.169.254/32'");
    }
    expect(await check('169.254.169.254', ['169.254.169.254/32'])).toMatchObject({ ok: true });
    expect(await check('[::ffff:169.254.169.254]', ['0.0.0.0/0'])).toMatchObject({ ok: false });
    expect(await check('[fd00:ec2::254]', ['::/0'])).toMatchObject({ ok: false });
    expect(await check('[fd00:ec2::254]', ['fd00:ec2::254/128'])).toMatchObject({ ok: true });
    expect(await check('168.63.129.16', ['0.0.0.0/0'])).toMatchObject({ ok: false });
    // Neighbours of a metadata address are ordinary link-local space.
    expect(await check('169.254.169.253', ['169.254.0.0/16'])).toMatchObject({ ok: true });
  });

  it('treats localhost as loopback: allowed only when both 127.0.0.1 and ::1 are', async () => {
    expect(await check('localhost', ['127.0.0.0/8'])).toMatchObject({ ok: false, code: 'blocked_address' });
    expect(await check('localhost.', ['127.0.0.0/8', '::1/128'])).toMatchObject({
      ok: true,
      addresses: [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ],
    });
  });

  it('refuses a malformed allowlist with invalid_option naming the entry', async () => {
    for (const bad of [['10.0.0.0/33'], ['10.0.0.0'], ['localhost/8'], [42]]) {
      const result = await check('10.0.0.1', bad as string[]);
      expect(result).toMatchObject({ ok: false, code: 'invalid_option' });
      if (!result.ok) expect(result.message).toContain('allowPrivateNetworks[0]');
    }
  });
});
