import { describe, expect, it } from 'vitest';
import { type Resolver, validateWebhookUrl } from '../src/index.js';
import { scriptedResolver } from './support/scripted-resolver.js';

const nxdomain = () => Object.assign(new Error('queryA ENOTFOUND hooks.example'), { code: 'ENOTFOUND' });
const URL_ = 'https://hooks.example/kyc?key=q-s3cr3t';

describe('SSRF policy over resolver answers', () => {
  it('rebinding: a name that was public at configuration time is refused when it turns private', async () => {
    const resolver = scriptedResolver(['93.184.216.34'], ['10.0.0.7']);
    expect(await validateWebhookUrl(URL_, { resolver })).toMatchObject({
      ok: true,
      addresses: [{ address: '93.184.216.34', family: 4 }],
    });
    const second = await validateWebhookUrl(URL_, { resolver });
    expect(second).toMatchObject({ ok: false, code: 'blocked_address' });
    if (!second.ok) {
      expect(second.message).toContain('hooks.example');
      expect(second.message).toContain('10.0.0.7');
      expect(second.message).not.toContain('s3cr3t');
    }
    expect(resolver.asked).toEqual(['hooks.example', 'hooks.example']);
  });

  it.each([
    [['93.184.216.34', '10.0.0.1'], '10.0.0.1'],
    [['10.0.0.1', '93.184.216.34'], '10.0.0.1'],
    [['93.184.216.34', '2606:4700::1111', '::1'], '::1'],
    [['2606:4700::1111', '::ffff:127.0.0.1'], 'loopback'],
    [['93.184.216.34', '169.254.169.254'], 'metadata'],
    [['2606:4700::1111', 'fd00:ec2::254'], 'metadata'],
    [['93.184.216.34', '64:ff9b::c0a8:1'], 'NAT64'],
    [['93.184.216.34', 'fe80::1%eth0'], 'zone id'],
    [['93.184.216.34', 'not-an-address'], 'not an IP address'],
    [['93.184.216.34', '127.1'], 'not an IP address'],
  ])('mixed answers %j are refused, naming %s', async (answers, named) => {
    const result = await validateWebhookUrl(URL_, { resolver: scriptedResolver(answers) });
    expect(result).toMatchObject({ ok: false, code: 'blocked_address' });
    if (!result.ok) expect(result.message).toContain(named);
  });

  it('accepts AAAA-only public answers and refuses AAAA-only private ones', async () => {
    const v6 = ['2606:4700:4700::1111', '2a00:1450:4001:81b::200e'];
    expect(await validateWebhookUrl(URL_, { resolver: scriptedResolver(v6) })).toMatchObject({
      ok: true,
      addresses: [
        { address: '2606:4700:4700::1111', family: 6 },
        { address: '2a00:1450:4001:81b::200e', family: 6 },
      ],
    });
    for (const answer of ['::1', 'fd12:3456::1', 'fe80::1', '2002:a00:1::1']) {
      expect(await validateWebhookUrl(URL_, { resolver: scriptedResolver([answer]) })).toMatchObject({
        ok: false,
        code: 'blocked_address',
      });
    }
  });

  it('reports NXDOMAIN and other lookup failures as dns_error with the system code', async () => {
    const result = await validateWebhookUrl(URL_, { resolver: scriptedResolver(nxdomain()) });
    expect(result).toMatchObject({ ok: false, code: 'dns_error' });
    if (!result.ok) expect(result.message).toBe('looking up host "hooks.example" failed (ENOTFOUND)');
    expect(await validateWebhookUrl(URL_, { resolver: scriptedResolver([]) })).toMatchObject({
      ok: false,
      code: 'dns_error',
    });
  });

  it('gives up on a resolver that never answers after timeoutMs, even if it ignores the signal', async () => {
    const hanging: Resolver = { resolve: () => new Promise(() => {}) };
    const started = performance.now();
    const result = await validateWebhookUrl(URL_, { resolver: hanging, timeoutMs: 50 });
    expect(result).toMatchObject({ ok: false, code: 'dns_timeout' });
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('passes its signal to the resolver, which may reject on abort', async () => {
    let seen: AbortSignal | undefined;
    const listening: Resolver = {
      resolve: (_hostname, signal) =>
        new Promise((_resolve, reject) => {
          seen = signal;
          signal?.addEventListener('abort', () => reject(signal.reason));
        }),
    };
    const result = await validateWebhookUrl(URL_, { resolver: listening, timeoutMs: 30 });
    expect(result).toMatchObject({ ok: false, code: 'dns_timeout' });
    expect(seen?.aborted).toBe(true);
  });

  it('reports a caller abort as aborted, not as a timeout', async () => {
    const controller = new AbortController();
    const pending = validateWebhookUrl(URL_, {
      resolver: { resolve: () => new Promise(() => {}) },
      signal: controller.signal,
    });
    controller.abort();
    expect(await pending).toMatchObject({ ok: false, code: 'aborted' });
    expect(
      await validateWebhookUrl(URL_, { resolver: scriptedResolver(['93.184.216.34']), signal: controller.signal }),
    ).toMatchObject({
      ok: false,
      code: 'aborted',
    });
  });

  it('asks the resolver for the name without its trailing dot, and never for localhost names', async () => {
    const resolver = scriptedResolver(['93.184.216.34']);
    expect(await validateWebhookUrl('https://Hooks.Example./kyc', { resolver })).toMatchObject({ ok: true });
    expect(await validateWebhookUrl('https://db.localhost/', { resolver })).toMatchObject({ ok: false });
    expect(resolver.asked).toEqual(['hooks.example']);
  });

  it('applies the allowlist to resolved answers too', async () => {
    const resolver = scriptedResolver(['10.20.30.40', '93.184.216.34']);
    expect(await validateWebhookUrl(URL_, { resolver, allowPrivateNetworks: ['10.0.0.0/8'] })).toMatchObject({
      ok: true,
    });
    const metadata = scriptedResolver(['169.254.169.254']);
    expect(
      await validateWebhookUrl(URL_, { resolver: metadata, allowPrivateNetworks: ['169.254.0.0/16'] }),
    ).toMatchObject({
      ok: false,
      code: 'blocked_address',
    });
  });

  it('survives a resolver that returns garbage instead of an array', async () => {
    const garbage = { resolve: async () => 'nonsense' } as unknown as Resolver;
    expect(await validateWebhookUrl(URL_, { resolver: garbage })).toMatchObject({ ok: false, code: 'dns_error' });
  });
});
