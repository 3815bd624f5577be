import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { verifyAuthorization } from './verify-authorization.js';

const KEY = 'kyc_live_7Hq2Lr9Xw4Zt1Bn6';
const NEXT = 'kyc_live_Pm3Vd8Kc5Yf0Gs2J';

describe('verifyAuthorization', () => {
  it('accepts the key with the Bearer scheme in any casing and with blanks around', () => {
    for (const header of [
      `Bearer ${KEY}`,
      `bearer ${KEY}`,
      `BEARER ${KEY}`,
      `  Bearer    ${KEY}  `,
      `Bearer\t${KEY}`,
    ]) {
      expect(verifyAuthorization(header, KEY)).toEqual({ ok: true });
    }
  });

  it('accepts every key of a rotation and refuses others', () => {
    expect(verifyAuthorization(`Bearer ${KEY}`, [NEXT, KEY])).toEqual({ ok: true });
    expect(verifyAuthorization(`Bearer ${NEXT}`, [NEXT, KEY])).toEqual({ ok: true });
    expect(verifyAuthorization(`Bearer ${KEY}x`, [NEXT, KEY])).toEqual({ ok: false, code: 'invalid_auth' });
    expect(verifyAuthorization(`Bearer ${KEY.slice(0, -1)}`, [NEXT, KEY])).toEqual({ ok: false, code: 'invalid_auth' });
  });

  it.each([
    [null, 'missing_auth'],
    [undefined, 'missing_auth'],
    ['', 'missing_auth'],
    ['   ', 'missing_auth'],
    [KEY, 'malformed_auth'],
    [`Basic ${KEY}`, 'malformed_auth'],
    ['Bearer', 'malformed_auth'],
    ['Bearer    ', 'malformed_auth'],
    [`Bearer ${KEY} extra`, 'malformed_auth'],
    [`Bearerx ${KEY}`, 'malformed_auth'],
    [`Bearer ${'x'.repeat(1_000_000)}`, 'invalid_auth'],
    ['Bearer 🔑🔑🔑🔑🔑🔑🔑🔑🔑🔑🔑🔑🔑🔑🔑🔑', 'invalid_auth'],
  ])('refuses %j with %s', (header, code) => {
    expect(verifyAuthorization(header as string | null | undefined, KEY)).toEqual({ ok: false, code });
  });

  it('never matches a key shorter than the minimum, an empty list or a non-string key', () => {
    expect(verifyAuthorization('Bearer short', 'short').ok).toBe(false);
    expect(verifyAuthorization(`Bearer ${KEY}`, []).ok).toBe(false);
    expect(verifyAuthorization(`Bearer ${KEY}`, [42 as unknown as string]).ok).toBe(false);
  });

  it('refuses (never throws on) hostile key lists: a throwing getter, a revoked Proxy, a header object', () => {
    const throwing = [KEY];
    Object.defineProperty(throwing, 0, {
      get() {
        throw new Error('boom');
      },
    });
    const revocable = Proxy.revocable([KEY], {});
    revocable.revoke();
    for (const keys of [
      throwing,
      revocable.proxy,
      new Proxy([KEY], {
        get: () => {
          throw new Error('trap');
        },
      }),
    ]) {
      expect(verifyAuthorization(`Bearer ${KEY}`, keys)).toEqual({ ok: false, code: 'invalid_auth' });
    }
    expect(verifyAuthorization({ toString: () => `Bearer ${KEY}` } as unknown as string, KEY)).toEqual({
      ok: false,
      code: 'missing_auth',
    });
  });

  it('refuses candidates that are a prefix, an extension or a repetition of the key', () => {
    for (const token of [KEY.slice(0, 1), KEY.slice(0, 8), KEY + KEY, `${KEY}${KEY.slice(0, 3)}`, KEY.repeat(3)]) {
      expect(verifyAuthorization(`Bearer ${token}`, [KEY, NEXT])).toEqual({ ok: false, code: 'invalid_auth' });
    }
  });

  it('never throws and never accepts anything but the key (property)', () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), (header, keys) => {
        const result = verifyAuthorization(header as string, keys as string);
        expect(typeof result.ok).toBe('boolean');
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (token) => {
        fc.pre(token.trim() !== KEY);
        expect(verifyAuthorization(`Bearer ${token}`, KEY).ok).toBe(false);
      }),
    );
  });
});
